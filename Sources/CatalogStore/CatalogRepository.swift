import CatalogCore
import Foundation
import Logging
import PostgresNIO

/// The writes of one catalog file applied to one app, all in one transaction: new and edited groups, new, edited
/// and deleted products, each with its history event.
public struct CatalogWrites: Sendable {
    public struct Group: Sendable {
        public let group: SubscriptionGroup
        public let event: HistoryRecord

        public init(group: SubscriptionGroup, event: HistoryRecord) {
            self.group = group
            self.event = event
        }
    }

    public struct ProductWrite: Sendable {
        public let product: Product
        /// For an edit: the product as read, whose version and state the write compares and sets.
        public let previous: Product?
        public let event: HistoryRecord

        public init(product: Product, previous: Product?, event: HistoryRecord) {
            self.product = product
            self.previous = previous
            self.event = event
        }
    }

    public var newGroups: [Group] = []
    public var editedGroups: [Group] = []
    public var newProducts: [ProductWrite] = []
    public var editedProducts: [ProductWrite] = []
    public var deletedProducts: [ProductWrite] = []

    public init() {}

    public var isEmpty: Bool {
        newGroups.isEmpty && editedGroups.isEmpty && newProducts.isEmpty && editedProducts.isEmpty && deletedProducts.isEmpty
    }
}

/// An app's whole catalog at once: read as one consistent snapshot, or changed by many writes in one transaction.
public struct CatalogRepository: Sendable {
    let database: Database

    /// The app's catalog as of one moment (one read-only, repeatable-read transaction); `nil` when there is no
    /// such app.
    public func snapshot(_ bundleID: String) async throws -> CatalogSnapshot? {
        try await database.translatingErrors {
            let result = Box<CatalogSnapshot>()
            try await database.inTransaction { connection in
                _ = try await connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY",
                                               logger: database.logger).collect()
                result.value = try await Self.read(bundleID, on: connection, locking: false, logger: database.logger)
            }
            return result.value
        }
    }

    /// Applies what `decide` makes of the app's catalog, in one transaction: the app's row and every product and
    /// group of the app are locked, the catalog is read, `decide` answers the writes (or throws, which writes
    /// nothing), and they are written, each with its event; then it commits. Nothing else can change the app's
    /// catalog between the read and the commit, so what `decide` saw is what the writes change. The uniqueness of
    /// reference names and levels is checked at the commit, so that the writes may swap them. Any refusal of the
    /// database rolls all of it back. Throws ``CatalogError/notFound(_:)`` when there is no such app.
    public func apply<Decision: Sendable>(
        _ bundleID: String, _ decide: @escaping @Sendable (CatalogSnapshot) throws -> (CatalogWrites, Decision)
    ) async throws -> Decision {
        try await database.translatingErrors {
            let result = Box<Decision>()
            try await database.inTransaction { connection in
                let logger = database.logger
                _ = try await connection.query(
                    "SET CONSTRAINTS products_reference_name_unique, products_level_unique DEFERRED", logger: logger
                ).collect()
                // Many events on one chain: history_link keeps the chain head's place for the next (0011).
                _ = try await connection.query("SET LOCAL iap.history_bulk = on", logger: logger).collect()
                guard let snapshot = try await Self.read(bundleID, on: connection, locking: true, logger: logger) else {
                    throw CatalogError.notFound("no app \(bundleID)")
                }
                let (writes, decision) = try decide(snapshot)
                try await Database.$held.withValue(connection) {
                    try await write(writes, app: bundleID, on: connection)
                }
                result.value = decision
            }
            guard let decision = result.value else {
                throw StoreInvariantViolation(description: "a catalog transaction committed without its decision")
            }
            return decision
        }
    }

    private func write(_ writes: CatalogWrites, app bundleID: String, on connection: PostgresConnection) async throws {
        let logger = database.logger
        let time = Date()
        if !writes.newGroups.isEmpty {
            let groups = writes.newGroups.map { ImportBatch.NewGroup(group: $0.group, storekit: nil, event: $0.event) }
            _ = try await connection.query(StoreKitRepository.insertGroups(groups, app: bundleID, at: time), logger: logger)
                .collect()
        }
        for edited in writes.editedGroups {
            try await database.subscriptionGroups.update(edited.group, event: edited.event)
        }
        for deleted in writes.deletedProducts {
            guard try await database.products.delete(deleted.product, event: deleted.event) else {
                throw CatalogError.conflict("\(deleted.product.productID) changed while the catalog file was applied")
            }
        }
        for edited in writes.editedProducts {
            guard let previous = edited.previous,
                  try await database.products.save(edited.product, replacing: previous, cause: StateChange.editCause,
                                                    event: edited.event)
            else {
                throw CatalogError.conflict("\(edited.product.productID) changed while the catalog file was applied")
            }
        }
        let products = writes.newProducts.map { ImportBatch.NewProduct(product: $0.product, storekit: nil, event: $0.event) }
        for start in stride(from: 0, to: products.count, by: StoreKitRepository.productsPerStatement) {
            let slice = products[start..<min(start + StoreKitRepository.productsPerStatement, products.count)]
            _ = try await connection.query(StoreKitRepository.insertProducts(slice, app: bundleID, at: time), logger: logger)
                .collect()
        }
    }

    /// The app's catalog, read on `connection`; with `locking`, the app's row, its groups and its products are
    /// locked for the rest of the transaction.
    private static func read(_ bundleID: String, on connection: PostgresConnection, locking: Bool, logger: Logger)
        async throws -> CatalogSnapshot?
    {
        let lock = locking ? " FOR UPDATE" : ""
        let appRows = try await connection.query(
            "SELECT \(unescaped: AppRepository.columns) FROM apps WHERE bundle_id = \(bundleID)\(unescaped: lock)",
            logger: logger).collect()
        guard let appRow = appRows.first else { return nil }
        let app = try AppRepository.app(from: appRow)
        var groups: [SubscriptionGroup] = []
        for row in try await connection.query("""
            SELECT \(unescaped: SubscriptionGroupRepository.columns) FROM subscription_groups WHERE app = \(bundleID)
            ORDER BY created_at, id\(unescaped: lock)
            """, logger: logger).collect() {
            groups.append(try SubscriptionGroupRepository.group(from: row))
        }
        var products: [Product] = []
        for row in try await connection.query("""
            SELECT \(unescaped: ProductRepository.columns) FROM products WHERE app = \(bundleID)
            ORDER BY product_id\(unescaped: lock)
            """, logger: logger).collect() {
            products.append(try ProductRepository.product(from: row))
        }
        var reserved = Set<String>()
        for row in try await connection.query(
            "SELECT product_id FROM product_id_reservations WHERE app = \(bundleID)", logger: logger).collect() {
            reserved.insert(try row.decode(String.self))
        }
        return CatalogSnapshot(app: app, groups: groups, products: products, reservedProductIDs: reserved)
    }
}

/// A value a transaction's body hands out (the body is `@Sendable` and returns nothing).
private final class Box<Value: Sendable>: @unchecked Sendable {
    // Written once by the transaction's body, read after the transaction has returned.
    var value: Value?
}
