import CatalogCore
import CatalogStore
import CatalogTestSupport
import Foundation
import PostgresNIO
import Testing

/// Apps and products written through the repositories, each test with its own app.
enum StoreFixtures {
    static let actor = Actor(keyID: nil, name: "store tests", role: .admin)
    static let now = Date()

    static func app(_ database: Database, _ bundleID: String, newsstand: Bool = false) async throws -> App {
        let app = App(bundleID: bundleID, name: "Test \(bundleID)", newsstand: newsstand, createdAt: now, updatedAt: now)
        try await database.apps.create(app, event: HistoryRecord(kind: .appCreated, bundleID: bundleID, actor: actor))
        return app
    }

    static func product(_ database: Database, in app: App, id: String = "coins", type: PurchaseType = .consumable)
        async throws -> Product
    {
        var fields = ProductEdit(referenceName: "Ref \(id)",
                                 localizations: [Localization(locale: "en-US", displayName: "Gold", description: "Coins")])
        if type.isPaid { fields.price = Price(currency: "USD", amount: "2.00") }
        let product = try Product.create(NewProduct(productID: id, type: type, fields: fields), in: app, at: now)
        try await database.products.create(product, event: created(product))
        return product
    }

    static func created(_ product: Product) -> HistoryRecord {
        HistoryRecord(kind: .created, bundleID: product.bundleID, productID: product.productID,
                      productVersion: product.version, toState: product.state, actor: actor,
                      changes: product.creationChanges)
    }

    /// Takes `action` and saves it the way the API does, answering the saved product.
    static func perform(_ action: ReviewAction, on product: Product, in app: App, _ database: Database)
        async throws -> Product
    {
        let next = try product.performing(action, by: .admin, reason: "r", in: app, at: Date())
        let saved = try await database.products.save(next, replacing: product, cause: action.rawValue, event: HistoryRecord(
            kind: .action, bundleID: app.bundleID, productID: next.productID, productVersion: next.version,
            action: action, fromState: product.state, toState: next.state, actor: actor))
        precondition(saved, "\(action) was not saved")
        return next
    }

    /// The database as the service reaches it, through a ``ConnectionPool`` of `size` connections (with
    /// `maxWaiting`, `timeout`) to the database of `suite`, with a client of its own for everything else;
    /// `body` gets the pool to watch and the URL to act as another client.
    static func withPool<Result: Sendable>(
        _ suite: String, size: Int, maxWaiting: Int = 0, timeout: Duration = .seconds(5),
        _ body: @Sendable (Database, ConnectionPool, DatabaseURL) async throws -> Result
    ) async throws -> Result {
        let url = try await TestDatabase.forSuite(suite)
        return try await TestDatabase.withClient(url) { client in
            let pool = ConnectionPool(configuration: try url.connectionConfiguration(), size: size,
                                      maxWaiting: maxWaiting, waitTimeout: timeout, logger: TestDatabase.logger)
            return try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await pool.run() }
                defer { group.cancelAll() }
                return try await body(Database(client: client, logger: TestDatabase.logger, pool: pool), pool, url)
            }
        }
    }

    /// The `CREATE FUNCTION name` statement of migration `version`, with every `name` in it (recursive calls too)
    /// renamed to `newName`: an earlier version of a function, to compare a later migration's with.
    static func function(_ name: String, ofMigration version: Int, renamedTo newName: String) throws -> String {
        let sql = try #require(try Migrator.bundled().first { $0.version == version }).sql
        let start = try #require(sql.range(of: "CREATE FUNCTION \(name)"))
        let end = try #require(sql.range(of: "$$;", range: start.upperBound..<sql.endIndex))
        return sql[start.lowerBound..<end.upperBound].replacingOccurrences(of: name, with: newName)
    }

    /// Runs raw SQL to its end (PostgresNIO reports a statement's error only to whoever reads its rows).
    static func run(_ sql: String, in database: Database) async throws {
        _ = try await database.client.query(PostgresQuery(unsafeSQL: sql)).collect()
    }

    /// The rows of a single-column query.
    static func values<T: PostgresDecodable & Sendable>(_ sql: String, as: T.Type, in database: Database) async throws -> [T] {
        var values: [T] = []
        for try await value in try await database.client.query(PostgresQuery(unsafeSQL: sql)).decode(T.self) {
            values.append(value)
        }
        return values
    }
}
