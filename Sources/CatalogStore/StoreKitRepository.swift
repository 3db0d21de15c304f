import CatalogCore
import Foundation
import PostgresNIO

/// The writes of one whole import, applied together or not at all: new subscription groups and products, each
/// with its history event, what the catalog keeps of the file for exports, and the file's own data.
public struct ImportBatch: Sendable {
    public struct NewGroup: Sendable {
        public let group: SubscriptionGroup
        /// What the catalog keeps of the file's group (JSON).
        public let storekit: String?
        public let event: HistoryRecord

        public init(group: SubscriptionGroup, storekit: String?, event: HistoryRecord) {
            self.group = group
            self.storekit = storekit
            self.event = event
        }
    }

    public struct NewProduct: Sendable {
        public let product: Product
        /// What the catalog keeps of the file's product (JSON).
        public let storekit: String?
        public let event: HistoryRecord

        public init(product: Product, storekit: String?, event: HistoryRecord) {
            self.product = product
            self.storekit = storekit
            self.event = event
        }
    }

    public let bundleID: String
    public let groups: [NewGroup]
    public let products: [NewProduct]
    /// The file without its products and groups (JSON), replacing the app's previous one; it may hold a
    /// private key, so it is never logged.
    public let document: String?
    public let fileName: String?
    public let importedAt: Date

    public init(bundleID: String, groups: [NewGroup], products: [NewProduct], document: String?, fileName: String?,
                importedAt: Date) {
        self.bundleID = bundleID
        self.groups = groups
        self.products = products
        self.document = document
        self.fileName = fileName
        self.importedAt = importedAt
    }
}

/// A product or group with what the catalog keeps of the file it came from (JSON, `nil` for one made in the
/// catalog).
public struct WithStoreKit<Value: Sendable>: Sendable {
    public let value: Value
    public let storekit: String?
}

/// What imports and exports of StoreKit configuration files read and write.
///
/// An import is one transaction of multi-row statements (the groups, the products a thousand at a time, the
/// file's data): each row is inserted with its history event in the same statement, as every write of the
/// catalog is, so that a file of 10,000 products takes seconds and either all of it is in the catalog or none
/// of it.
public struct StoreKitRepository: Sendable {
    let database: Database

    /// Every product of the app with its file data, in creation order.
    public func products(_ bundleID: String) async throws -> [WithStoreKit<Product>] {
        try await database.translatingErrors {
            let rows = try await database.query("""
                SELECT \(unescaped: ProductRepository.columns), storekit::text FROM products WHERE app = \(bundleID)
                ORDER BY created_at, product_id
                """)
            var products: [WithStoreKit<Product>] = []
            for try await row in rows {
                let storekit: String? = try row.makeRandomAccess()["storekit"].decode(String?.self)
                products.append(WithStoreKit(value: try ProductRepository.product(from: row), storekit: storekit))
            }
            return products
        }
    }

    /// Every subscription group of the app with its file data.
    public func groups(_ bundleID: String) async throws -> [WithStoreKit<SubscriptionGroup>] {
        try await database.translatingErrors {
            let rows = try await database.query("""
                SELECT \(unescaped: SubscriptionGroupRepository.columns), storekit::text FROM subscription_groups
                WHERE app = \(bundleID) ORDER BY created_at, reference_name COLLATE "C"
                """)
            var groups: [WithStoreKit<SubscriptionGroup>] = []
            for try await row in rows {
                let storekit: String? = try row.makeRandomAccess()["storekit"].decode(String?.self)
                groups.append(WithStoreKit(value: try SubscriptionGroupRepository.group(from: row), storekit: storekit))
            }
            return groups
        }
    }

    /// Every productId the app has used, deleted products' included.
    public func reservedProductIDs(_ bundleID: String) async throws -> Set<String> {
        try await database.translatingErrors {
            let rows = try await database.query(
                "SELECT product_id FROM product_id_reservations WHERE app = \(bundleID)")
            var identifiers = Set<String>()
            for try await identifier in rows.decode(String.self) { identifiers.insert(identifier) }
            return identifiers
        }
    }

    /// The app's latest imported file without its products and groups (JSON), if any. It may hold a private key.
    public func document(_ bundleID: String) async throws -> String? {
        // Read to the end (a statement left half-read would keep its connection busy).
        try await database.execute("SELECT document::text FROM storekit_files WHERE app = \(bundleID)")
            .first?.decode(String.self)
    }

    /// Applies a whole import in one transaction: the app's row is locked (imports of one app queue), then the
    /// groups, the products and the file's data are written, each row with its history event. Any refusal (a
    /// productId taken meanwhile, the app's product limit) rolls all of it back.
    public func apply(_ batch: ImportBatch) async throws {
        try await database.translatingErrors {
            try await database.inTransaction { connection in
                // Many events on one chain: history_link keeps the chain head's place for the next (0011).
                _ = try await connection.query("SET LOCAL iap.history_bulk = on", logger: database.logger).collect()
                _ = try await connection.query(
                    "SELECT 1 FROM apps WHERE bundle_id = \(batch.bundleID) FOR UPDATE", logger: database.logger
                ).collect()
                if !batch.groups.isEmpty {
                    _ = try await connection.query(Self.insertGroups(batch.groups, app: batch.bundleID, at: batch.importedAt),
                                                   logger: database.logger).collect()
                }
                // A statement per thousand products: each stays far inside the service's statement timeout.
                for start in stride(from: 0, to: batch.products.count, by: Self.productsPerStatement) {
                    let products = batch.products[start..<min(start + Self.productsPerStatement, batch.products.count)]
                    _ = try await connection.query(Self.insertProducts(products, app: batch.bundleID, at: batch.importedAt),
                                                   logger: database.logger).collect()
                }
                if let document = batch.document {
                    _ = try await connection.query("""
                        INSERT INTO storekit_files (app, file_name, document, imported_at)
                        VALUES (\(batch.bundleID), \(batch.fileName), \(document)::jsonb, \(batch.importedAt))
                        ON CONFLICT (app) DO UPDATE
                        SET file_name = excluded.file_name, document = excluded.document, imported_at = excluded.imported_at
                        """, logger: database.logger).collect()
                }
            }
        }
    }

    /// One group row of an import, as `jsonb_to_recordset` reads it.
    private struct GroupRow: Encodable {
        let ord: Int
        let id: UUID
        let referenceName: String
        let localizations: [SubscriptionGroup.Localization]
        let storekit: String?
        let event: HistoryRecordJSON
    }

    /// New groups, each with its event, in one statement (an import's, a catalog file's).
    static func insertGroups(_ groups: [ImportBatch.NewGroup], app bundleID: String, at time: Date) -> PostgresQuery {
        let rows = groups.enumerated().map { index, new in
            GroupRow(ord: index, id: new.group.id, referenceName: new.group.referenceName,
                     localizations: new.group.localizations, storekit: new.storekit, event: HistoryRecordJSON(new.event))
        }
        return """
            WITH input AS (
                SELECT * FROM jsonb_to_recordset(\(JSONColumn.encode(rows))::jsonb) AS r(
                    ord integer, id uuid, "referenceName" text, localizations jsonb, storekit text, event jsonb)
            ), created AS (
                INSERT INTO subscription_groups (app, id, reference_name, localizations, storekit, created_at, updated_at)
                SELECT \(bundleID), id, "referenceName", localizations, storekit::jsonb, \(time), \(time)
                FROM input ORDER BY ord
                RETURNING id)
            SELECT history_append(event) FROM (
                SELECT input.event FROM input JOIN created USING (id) ORDER BY input.ord) AS appended
            """
    }

    /// One product row of an import, as `jsonb_to_recordset` reads it. Amounts are strings, which `numeric`
    /// reads exactly with their scale.
    private struct ProductRow: Encodable {
        let ord: Int
        let productId: String
        let type: String
        let referenceName: String
        let priceCurrency: String?
        let priceAmount: String?
        let territoryPrices: [TerritoryPrice]
        let introductoryOffer: IntroductoryOffer?
        let clearedForSale: Bool
        let localizations: [Localization]
        let reviewNote: String?
        let familyShareable: Bool
        let subscriptionGroupId: UUID?
        let level: Int?
        let duration: String?
        let storekit: String?
        let event: HistoryRecordJSON
    }

    /// How many products one statement inserts.
    static let productsPerStatement = 1_000

    /// New products, each with its event, in one statement (an import's, a catalog file's).
    static func insertProducts(_ products: ArraySlice<ImportBatch.NewProduct>, app bundleID: String, at time: Date)
        -> PostgresQuery
    {
        let rows = products.enumerated().map { index, new in
            let product = new.product
            return ProductRow(
                ord: index, productId: product.productID, type: product.type.rawValue,
                referenceName: product.referenceName, priceCurrency: product.price?.currency,
                priceAmount: product.price?.amount.text, territoryPrices: product.territoryPrices,
                introductoryOffer: product.introductoryOffer, clearedForSale: product.clearedForSale,
                localizations: product.content.localizations, reviewNote: product.content.reviewNote,
                familyShareable: product.content.familyShareable, subscriptionGroupId: product.content.subscriptionGroupID,
                level: product.content.level, duration: product.content.duration?.rawValue, storekit: new.storekit,
                event: HistoryRecordJSON(new.event))
        }
        return """
            WITH input AS (
                SELECT * FROM jsonb_to_recordset(\(JSONColumn.encode(rows))::jsonb) AS r(
                    ord integer, "productId" text, type purchase_type, "referenceName" text, "priceCurrency" text,
                    "priceAmount" numeric, "territoryPrices" jsonb, "introductoryOffer" jsonb, "clearedForSale" boolean,
                    localizations jsonb, "reviewNote" text, "familyShareable" boolean, "subscriptionGroupId" uuid,
                    level integer, duration text, storekit text, event jsonb)
            ), created AS (
                INSERT INTO products (app, product_id, type, reference_name, price_currency, price_amount,
                                      territory_prices, introductory_offer, cleared_for_sale, localizations,
                                      review_note, family_shareable, subscription_group_id, level, duration, storekit,
                                      created_at, updated_at)
                SELECT \(bundleID), "productId", type, "referenceName", "priceCurrency", "priceAmount",
                       "territoryPrices", "introductoryOffer", "clearedForSale", localizations, "reviewNote",
                       "familyShareable", "subscriptionGroupId", level, duration, storekit::jsonb, \(time), \(time)
                FROM input ORDER BY ord
                RETURNING product_id)
            SELECT history_append(event) FROM (
                SELECT input.event FROM input JOIN created ON created.product_id = input."productId"
                ORDER BY input.ord) AS appended
            """
    }
}
