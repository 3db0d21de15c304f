@testable import CatalogStore
import CatalogCore
import CatalogTestSupport
import Foundation
import PostgresNIO
import Testing

/// Concurrent lifecycle changes are written together, each still a compare-and-set with its event: all that
/// should be saved are, in fewer transactions than changes; of racing changes of one product exactly one is;
/// a change the database refuses is refused alone.
@Suite("Lifecycle changes written together", .timeLimit(.minutes(6)))
struct LifecycleBatchesTests {
    static func withBatching<Result: Sendable>(
        _ suite: String, _ body: @Sendable (Database, DatabaseURL) async throws -> Result
    ) async throws -> Result {
        let url = try await TestDatabase.forSuite(suite)
        return try await TestDatabase.withClient(url) { client in
            try await body(Database(client: client, logger: TestDatabase.logger, batching: true), url)
        }
    }

    static func approval(of product: Product, in app: App) throws -> (Product, HistoryRecord) {
        let next = try product.performing(.approve, by: .admin, reason: nil, in: app, at: Date())
        return (next, HistoryRecord(kind: .action, bundleID: app.bundleID, productID: next.productID,
                                    productVersion: next.version, action: .approve, fromState: product.state,
                                    toState: next.state, actor: StoreFixtures.actor))
    }

    @Test("forty concurrent approvals are all saved, each with its event, in fewer transactions; the chain verifies")
    func concurrentChanges() async throws {
        try await Self.withBatching("lifecycle_batches") { database, _ in
            let app = try await StoreFixtures.app(database, "com.batch.many")
            var products: [Product] = []
            for index in 0..<40 { products.append(try await StoreFixtures.product(database, in: app, id: "p\(index)")) }
            let created = products
            let saved = try await withThrowingTaskGroup(of: Bool.self) { group in
                for product in created {
                    group.addTask {
                        let (next, event) = try Self.approval(of: product, in: app)
                        return try await database.products.save(next, replacing: product, cause: "approve", event: event)
                    }
                }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(saved.count == 40 && saved.allSatisfy { $0 })
            let states = try await StoreFixtures.values(
                "SELECT state::text || ' ' || version FROM products WHERE app = 'com.batch.many'", as: String.self, in: database)
            #expect(states.count == 40 && states.allSatisfy { $0 == "APPROVED_BY_DEVELOPER 2" }, "\(states)")
            let events = try await StoreFixtures.values(
                "SELECT count(*) FROM history_events WHERE app = 'com.batch.many' AND action = 'approve'",
                as: Int.self, in: database)
            let transactions = try await StoreFixtures.values(
                "SELECT count(DISTINCT txid) FROM history_events WHERE app = 'com.batch.many' AND action = 'approve'",
                as: Int.self, in: database)
            #expect(events == [40])
            #expect(transactions.first.map { $0 < 40 } == true, "\(transactions) transactions for 40 changes")
            let verification = try await database.history.verify(chain: "com.batch.many")
            #expect(verification.verified && verification.events == 81, "\(verification)")
        }
    }

    @Test("of eight racing changes of one product, exactly one is saved, with one event")
    func racingChanges() async throws {
        try await Self.withBatching("lifecycle_batches") { database, _ in
            let app = try await StoreFixtures.app(database, "com.batch.race")
            let product = try await StoreFixtures.product(database, in: app)
            let saved = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        let (next, event) = try Self.approval(of: product, in: app)
                        return try await database.products.save(next, replacing: product, cause: "approve", event: event)
                    }
                }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(saved.filter { $0 }.count == 1, "\(saved)")
            let events = try await StoreFixtures.values(
                "SELECT count(*) FROM history_events WHERE app = 'com.batch.race' AND action = 'approve'",
                as: Int.self, in: database)
            #expect(events == [1])
        }
    }

    @Test("a row of a saved batch that does not decode is an error, never a change taken for not saved")
    func undecodableRow() async throws {
        try await Self.withBatching("lifecycle_batches") { database, _ in
            let rows = try await database.execute("SELECT 2::bigint, 7::bigint UNION ALL SELECT 5, 8")
            #expect(try LifecycleBatches.savedOrdinals(rows) == [2, 5])
            let undecodable = try await database.execute("SELECT 2::bigint, 7::bigint UNION ALL SELECT NULL, 8")
            #expect(throws: PostgresDecodingError.self) { try LifecycleBatches.savedOrdinals(undecodable) }
        }
    }

    @Test("a change the database refuses is refused alone; the changes written with it are saved")
    func refusalIsAlone() async throws {
        try await Self.withBatching("lifecycle_batches") { database, _ in
            let app = try await StoreFixtures.app(database, "com.batch.refused")
            var products: [Product] = []
            for index in 0..<30 { products.append(try await StoreFixtures.product(database, in: app, id: "p\(index)")) }
            let created = products
            let outcomes = try await withThrowingTaskGroup(of: (Int, String).self) { group in
                for (index, product) in created.enumerated() {
                    group.addTask {
                        let (next, event) = try Self.approval(of: product, in: app)
                        // Products 5, 15 and 25 claim a cause the transition table does not know for their move.
                        let cause = index % 10 == 5 ? "submit" : "approve"
                        do {
                            let saved = try await database.products.save(next, replacing: product, cause: cause, event: event)
                            return (index, saved ? "saved" : "not saved")
                        } catch {
                            return (index, "refused")
                        }
                    }
                }
                return try await group.reduce(into: [Int: String]()) { $0[$1.0] = $1.1 }
            }
            #expect(outcomes.count == 30)
            #expect(outcomes.allSatisfy { $0.value == ($0.key % 10 == 5 ? "refused" : "saved") }, "\(outcomes)")
            let pending = try await StoreFixtures.values(
                "SELECT product_id FROM products WHERE app = 'com.batch.refused' AND state = 'PENDING_DEVELOPER_APPROVAL'",
                as: String.self, in: database)
            #expect(pending.sorted() == ["p15", "p25", "p5"])
        }
    }
}
