import CatalogCore
import Foundation
import PostgresNIO

/// What to list of an app's products.
public struct ProductFilter: Sendable, Hashable {
    public var state: ReviewState?
    public var type: PurchaseType?
    /// Text that the productId or referenceName contains, ignoring case.
    public var text: String?

    public init(state: ReviewState? = nil, type: PurchaseType? = nil, text: String? = nil) {
        self.state = state
        self.type = type
        self.text = text
    }
}

/// Products in PostgreSQL. Every write records its history event in the same statement, and every change is
/// a compare-and-set on the version read, so of racing writers exactly one wins.
public struct ProductRepository: Sendable {
    let database: Database

    static let columnList = [
        "app", "product_id", "type::text", "state::text", "version", "reference_name", "price_currency",
        "price_amount::text", "territory_prices::text", "introductory_offer::text", "cleared_for_sale",
        "localizations::text", "review_note", "family_shareable", "subscription_group_id", "level", "duration",
        "live_content::text", "submitted_from::text", "ever_submitted", "created_at", "updated_at",
    ]
    static let columns = columnList.joined(separator: ", ")

    public func find(_ bundleID: String, _ productID: String) async throws -> Product? {
        try await database.execute(Find(bundleID: bundleID, productID: productID)).first.map(Self.product(from:))
    }

    struct Find: ProductKeyQuery {
        static let name = "ProductRepository.Find"
        static let sql = "SELECT \(ProductRepository.columns) FROM products WHERE app = $1 AND product_id = $2"
        let bundleID: String
        let productID: String
    }

    /// The app and its product `productID` in one read, for an operation on one product: `nil` when there is
    /// no such app, a `nil` product when the app has no such product.
    public func findWithApp(_ bundleID: String, _ productID: String) async throws -> (App, Product?)? {
        guard let row = try await database.execute(FindWithApp(bundleID: bundleID, productID: productID)).first else {
            return nil
        }
        let app = try AppRepository.app(from: row, prefix: "app_")
        guard try row.makeRandomAccess()["product_id"].decode(String?.self) != nil else { return (app, nil) }
        return (app, try Self.product(from: row))
    }

    /// bench/ceiling/action.sql repeats this read for pgbench, as it does `Save`.
    struct FindWithApp: ProductKeyQuery {
        static let name = "ProductRepository.FindWithApp"
        static let sql = """
            SELECT \(AppRepository.columnList.map { "a.\($0) AS app_\($0)" }.joined(separator: ", ")),
                   \(ProductRepository.columnList.map { "p.\($0)" }.joined(separator: ", "))
            FROM apps a LEFT JOIN products p ON p.app = a.bundle_id AND p.product_id = $2
            WHERE a.bundle_id = $1
            """
        let bundleID: String
        let productID: String
    }

    /// One page of the app's products in productId order, after `cursor`.
    public func list(_ bundleID: String, filter: ProductFilter, after cursor: String?, limit: Int) async throws
        -> [Product]
    {
        try await database.translatingErrors {
            let rows = try await database.query("""
                SELECT \(unescaped: Self.columns) FROM products
                WHERE app = \(bundleID)
                  AND (\(filter.state?.rawValue)::review_state IS NULL OR state = \(filter.state?.rawValue)::review_state)
                  AND (\(filter.type?.rawValue)::purchase_type IS NULL OR type = \(filter.type?.rawValue)::purchase_type)
                  AND (\(filter.text)::text IS NULL
                       OR strpos(lower(product_id), lower(\(filter.text))) > 0
                       OR strpos(lower(reference_name), lower(\(filter.text))) > 0)
                  AND (\(cursor)::text IS NULL OR product_id > \(cursor))
                ORDER BY product_id LIMIT \(limit)
                """)
            var products: [Product] = []
            for try await row in rows { products.append(try Self.product(from: row)) }
            return products
        }
    }

    /// Stores a new product with its `created` event. Its productId is reserved for good by the database.
    public func create(_ product: Product, event: HistoryRecord) async throws {
        try await database.translatingErrors {
            try await database.execute("""
                WITH created AS (
                    INSERT INTO products (app, product_id, type, reference_name, price_currency, price_amount,
                                          territory_prices, introductory_offer, cleared_for_sale, localizations,
                                          review_note, family_shareable, subscription_group_id, level, duration,
                                          created_at, updated_at)
                    VALUES (\(product.bundleID), \(product.productID), \(product.type.rawValue)::purchase_type,
                            \(product.referenceName), \(product.price?.currency), \(product.price?.amount.text)::numeric,
                            \(JSONColumn.encode(product.territoryPrices))::jsonb,
                            \(JSONColumn.encodeIfPresent(product.introductoryOffer))::jsonb, \(product.clearedForSale),
                            \(JSONColumn.encode(product.content.localizations))::jsonb, \(product.content.reviewNote),
                            \(product.content.familyShareable), \(product.content.subscriptionGroupID),
                            \(product.content.level), \(product.content.duration?.rawValue), \(product.createdAt),
                            \(product.updatedAt))
                    RETURNING 1)
                SELECT history_append(\(HistoryRecordJSON.text(event))::jsonb) FROM created
                """)
        }
    }

    /// Writes `product` over `previous` if nobody changed it since `previous` was read (same version and
    /// state), with its event; answers whether it did. `cause` names what made the change ('edit' or the
    /// action), which the database checks against its transition table.
    ///
    /// Most actions change only the product's place in the lifecycle (`Product.changesOnlyLifecycle(from:)`):
    /// those write only its lifecycle columns (``SaveState``), the others every column (``Save``). Since the
    /// version read is still the stored one, both leave the row exactly as `product` is; the narrow one spares
    /// PostgreSQL parsing and storing the JSON columns again, and the server encoding them.
    public func save(_ product: Product, replacing previous: Product, cause: String, event: HistoryRecord)
        async throws -> Bool
    {
        if product.changesOnlyLifecycle(from: previous) {
            // Outside any operation (not in a transaction of the caller's), it goes with the other operations'.
            if let batches = database.lifecycleBatches, Database.held == nil {
                // The operation's connection, if it holds one, is not needed for it: another may use it meanwhile.
                Database.scope?.end()
                return try await batches.save(.init(product: product, previous: previous, cause: cause, event: event),
                                              on: database)
            }
            return try await !database.execute(SaveState(product: product, previous: previous, cause: cause,
                                                         event: event)).isEmpty
        }
        return try await !database.execute(Save(product: product, previous: previous, cause: cause, event: event)).isEmpty
    }

    /// The change of a product's lifecycle columns only, with its event. bench/ceiling/action.sql repeats this
    /// statement for pgbench (the database's own actions/s): a change here belongs there too.
    struct SaveState: PreparedQuery {
        static let name = "ProductRepository.SaveState"
        static let sql = """
            WITH changed AS (
                UPDATE products SET
                    state = $1::review_state, version = $2, last_change = $3, cleared_for_sale = $4,
                    submitted_from = $5::review_state, ever_submitted = $6, updated_at = $7
                WHERE app = $8 AND product_id = $9 AND version = $10 AND state = $11::review_state
                RETURNING 1)
            SELECT history_append($12::jsonb) FROM changed
            """
        static let bindingDataTypes: [PostgresDataType] = [
            .text, .int8, .text, .bool, .text, .bool, .timestamptz, .text, .text, .int8, .text, .text,
        ]
        let product: Product
        let previous: Product
        let cause: String
        let event: HistoryRecord

        func makeBindings() -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 12)
            bindings.append(product.state.rawValue)
            bindings.append(product.version)
            bindings.append(cause)
            bindings.append(product.clearedForSale)
            bindings.append(product.submittedFrom?.rawValue)
            bindings.append(product.everSubmitted)
            bindings.append(product.updatedAt)
            bindings.append(previous.bundleID)
            bindings.append(previous.productID)
            bindings.append(previous.version)
            bindings.append(previous.state.rawValue)
            bindings.append(HistoryRecordJSON.text(event))
            return bindings
        }
    }

    /// Several lifecycle changes with their events, for ``LifecycleBatches``: each a compare-and-set as in
    /// ``SaveState``; answers the ordinal (from 1) of every change saved. Of two changes of one product, at most
    /// one is saved. bench/ceiling/batch.sql repeats this statement for pgbench: a change here belongs there too.
    ///
    /// Every row is locked in one order, so that two batches never wait for each other in a circle: first the
    /// products, by `SELECT … ORDER BY app, product_id FOR NO KEY UPDATE` (PostgreSQL locks the rows as the sort
    /// hands them out, whatever plan finds them; the update's own join would lock them in the order its plan
    /// meets them), then the chain heads, as the events are appended in the same order after every product is
    /// updated. The update changes the row versions it locked, by their tuple id: a row that another writer
    /// changed meanwhile was locked in its new version, which this statement's snapshot does not see, so it is
    /// not saved, as its compare-and-set would have said.
    struct SaveStates: PreparedQuery {
        static let name = "ProductRepository.SaveStates"
        static let sql = """
            WITH change AS (
                SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::bigint[],
                                     $7::text[], $8::boolean[], $9::text[], $10::boolean[], $11::timestamptz[],
                                     $12::text[])
                    WITH ORDINALITY AS c(app, product_id, version, state, next_state, next_version, cause,
                                         cleared_for_sale, submitted_from, ever_submitted, updated_at, event, ordinal)
            ), locked AS (
                SELECT p.ctid AS row, p.app, p.product_id FROM products p
                WHERE (p.app, p.product_id) IN (SELECT app, product_id FROM change)
                ORDER BY p.app, p.product_id
                FOR NO KEY UPDATE OF p
            ), changed AS (
                UPDATE products p SET
                    state = c.next_state::review_state, version = c.next_version, last_change = c.cause,
                    cleared_for_sale = c.cleared_for_sale, submitted_from = nullif(c.submitted_from, '')::review_state,
                    ever_submitted = c.ever_submitted, updated_at = c.updated_at
                FROM locked l JOIN change c ON c.app = l.app AND c.product_id = l.product_id
                WHERE p.ctid = l.row AND p.version = c.version AND p.state = c.state::review_state
                RETURNING c.ordinal, c.app, c.product_id, c.event)
            SELECT ordinal, history_append(event::jsonb)
            FROM (SELECT * FROM changed ORDER BY app, product_id) AS saved
            """
        static let bindingDataTypes: [PostgresDataType] = [
            .textArray, .textArray, .int8Array, .textArray, .textArray, .int8Array, .textArray, .boolArray,
            .textArray, .boolArray, .timestamptzArray, .textArray,
        ]
        let changes: [LifecycleBatches.Change]

        init(_ changes: [LifecycleBatches.Change]) {
            self.changes = changes
        }

        func makeBindings() -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 12)
            bindings.append(changes.map(\.previous.bundleID))
            bindings.append(changes.map(\.previous.productID))
            bindings.append(changes.map(\.previous.version))
            bindings.append(changes.map(\.previous.state.rawValue))
            bindings.append(changes.map(\.product.state.rawValue))
            bindings.append(changes.map(\.product.version))
            bindings.append(changes.map(\.cause))
            bindings.append(changes.map(\.product.clearedForSale))
            bindings.append(changes.map { $0.product.submittedFrom?.rawValue ?? "" })
            bindings.append(changes.map(\.product.everSubmitted))
            bindings.append(changes.map(\.product.updatedAt))
            bindings.append(changes.map { HistoryRecordJSON.text($0.event) })
            return bindings
        }
    }

    /// The change of every column, with its event.
    struct Save: PreparedQuery {
        static let name = "ProductRepository.Save"
        static let sql = """
            WITH changed AS (
                UPDATE products SET
                    state = $1::review_state, version = $2, last_change = $3, reference_name = $4,
                    price_currency = $5, price_amount = $6::numeric, territory_prices = $7::jsonb,
                    introductory_offer = $8::jsonb, cleared_for_sale = $9, localizations = $10::jsonb,
                    review_note = $11, family_shareable = $12, subscription_group_id = $13, level = $14,
                    duration = $15, live_content = $16::jsonb, submitted_from = $17::review_state,
                    ever_submitted = $18, updated_at = $19
                WHERE app = $20 AND product_id = $21 AND version = $22 AND state = $23::review_state
                RETURNING 1)
            SELECT history_append($24::jsonb) FROM changed
            """
        static let bindingDataTypes: [PostgresDataType] = [
            .text, .int8, .text, .text, .text, .text, .text, .text, .bool, .text, .text, .bool, .uuid, .int8, .text,
            .text, .text, .bool, .timestamptz, .text, .text, .int8, .text, .text,
        ]
        let product: Product
        let previous: Product
        let cause: String
        let event: HistoryRecord

        func makeBindings() -> PostgresBindings {
            let content = product.content
            var bindings = PostgresBindings(capacity: 24)
            bindings.append(product.state.rawValue)
            bindings.append(product.version)
            bindings.append(cause)
            bindings.append(product.referenceName)
            bindings.append(product.price?.currency)
            bindings.append(product.price?.amount.text)
            bindings.append(JSONColumn.encode(product.territoryPrices))
            bindings.append(JSONColumn.encodeIfPresent(product.introductoryOffer))
            bindings.append(product.clearedForSale)
            bindings.append(JSONColumn.encode(content.localizations))
            bindings.append(content.reviewNote)
            bindings.append(content.familyShareable)
            bindings.append(content.subscriptionGroupID)
            bindings.append(content.level)
            bindings.append(content.duration?.rawValue)
            bindings.append(JSONColumn.encodeIfPresent(product.liveContent))
            bindings.append(product.submittedFrom?.rawValue)
            bindings.append(product.everSubmitted)
            bindings.append(product.updatedAt)
            bindings.append(previous.bundleID)
            bindings.append(previous.productID)
            bindings.append(previous.version)
            bindings.append(previous.state.rawValue)
            bindings.append(HistoryRecordJSON.text(event))
            return bindings
        }
    }

    /// Deletes a never-submitted product if it is still at `product.version`, with its `deleted` event;
    /// answers whether it did. The productId stays reserved.
    public func delete(_ product: Product, event: HistoryRecord) async throws -> Bool {
        try await database.translatingErrors {
            let rows = try await database.execute("""
                WITH removed AS (
                    DELETE FROM products
                    WHERE app = \(product.bundleID) AND product_id = \(product.productID)
                      AND version = \(product.version) AND NOT ever_submitted
                    RETURNING 1)
                SELECT history_append(\(HistoryRecordJSON.text(event))::jsonb) FROM removed
                """)
            return !rows.isEmpty
        }
    }

    /// The identifiers of the app's products on sale, in byte order; `nil` when there is no such app.
    public func identifiersOnSale(_ bundleID: String, type: PurchaseType?) async throws -> [String]? {
        try await database.translatingErrors {
            let rows = try await database.query("""
                SELECT product_id FROM products
                WHERE app = \(bundleID) AND on_sale
                  AND (\(type?.rawValue)::purchase_type IS NULL OR type = \(type?.rawValue)::purchase_type)
                ORDER BY product_id
                """)
            var identifiers: [String] = []
            for try await identifier in rows.decode(String.self) { identifiers.append(identifier) }
            if identifiers.isEmpty, try await database.apps.find(bundleID) == nil { return nil }
            return identifiers
        }
    }

    static func product(from row: PostgresRow) throws -> Product {
        let columns = row.makeRandomAccess()
        func value<T: PostgresDecodable>(_ name: String, _ type: T.Type = T.self) throws -> T {
            try columns[name].decode(T.self)
        }
        let type: String = try value("type")
        let state: String = try value("state")
        guard let purchaseType = PurchaseType(rawValue: type), let reviewState = ReviewState(rawValue: state) else {
            throw StoreInvariantViolation(description: "unknown type \(type) or state \(state) in the database")
        }
        let currency: String? = try value("price_currency")
        let amount: String? = try value("price_amount")
        let duration: String? = try value("duration")
        let submittedFrom: String? = try value("submitted_from")
        return Product(
            bundleID: try value("app"), productID: try value("product_id"), type: purchaseType, state: reviewState,
            version: try value("version"), referenceName: try value("reference_name"),
            price: zip(currency, amount).map { Price(currency: $0, amount: DecimalAmount($1)) },
            territoryPrices: try JSONColumn.decode([TerritoryPrice].self, from: value("territory_prices", String.self)),
            introductoryOffer: try JSONColumn.decodeIfPresent(IntroductoryOffer.self, from: value("introductory_offer", String?.self)),
            clearedForSale: try value("cleared_for_sale"),
            content: ReviewedContent(
                localizations: try JSONColumn.decode([Localization].self, from: value("localizations", String.self)),
                reviewNote: try value("review_note"), familyShareable: try value("family_shareable"),
                subscriptionGroupID: try value("subscription_group_id"), level: try value("level"),
                duration: duration.flatMap(SubscriptionDuration.init(rawValue:))),
            liveContent: try JSONColumn.decodeIfPresent(ReviewedContent.self, from: value("live_content", String?.self)),
            submittedFrom: submittedFrom.flatMap(ReviewState.init(rawValue:)),
            everSubmitted: try value("ever_submitted"),
            createdAt: try value("created_at"), updatedAt: try value("updated_at"))
    }
}

/// A statement on one product by its key: `$1` the app's bundle id, `$2` the productId.
protocol ProductKeyQuery: PreparedQuery {
    var bundleID: String { get }
    var productID: String { get }
}

extension ProductKeyQuery {
    static var bindingDataTypes: [PostgresDataType] { [.text, .text] }

    func makeBindings() -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 2)
        bindings.append(bundleID)
        bindings.append(productID)
        return bindings
    }
}

private func zip<A, B>(_ a: A?, _ b: B?) -> (A, B)? {
    guard let a, let b else { return nil }
    return (a, b)
}
