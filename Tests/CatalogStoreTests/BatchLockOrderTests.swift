@testable import CatalogStore
import CatalogCore
import CatalogTestSupport
import Foundation
import PostgresNIO
import Testing

/// Two batches that change the same products never wait for each other in a circle, whatever order their changes
/// come in: each locks its product rows in one order before it changes any (docs/decisions.md).
@Suite("Batches lock their rows in one order", .timeLimit(.minutes(6)))
struct BatchLockOrderTests {
    /// The change `product` makes next: submitted when approved, withdrawn when waiting (both lifecycle only).
    static func nextChange(of product: Product, in app: App) throws -> LifecycleBatches.Change {
        let action: ReviewAction = product.state == .approvedByDeveloper ? .submit : .withdraw
        let next = try product.performing(action, by: .admin, reason: nil, in: app, at: Date())
        return LifecycleBatches.Change(
            product: next, previous: product, cause: action.rawValue,
            event: HistoryRecord(kind: .action, bundleID: app.bundleID, productID: next.productID,
                                 productVersion: next.version, action: action, fromState: product.state,
                                 toState: next.state, actor: StoreFixtures.actor))
    }

    /// The plans the update may take: on a table of a few rows PostgreSQL scans it whole and joins by hash (the
    /// rows in the table's order); on a catalog the size of the benchmark's it looks each product up by its key,
    /// in the batch's order (forced here by turning the other plans off).
    @Test("batches over the same products in opposite orders, four at a time, never deadlock",
          arguments: [false, true])
    func oppositeOrders(byKey: Bool) async throws {
        let url = try await TestDatabase.forSuite(byKey ? "batch_lock_order_by_key" : "batch_lock_order")
        // A deadlock is found after deadlock_timeout (1 s by default): found at once, circles show within the
        // test's iterations instead of slowing them.
        var settings = ["deadlock_timeout": "10ms"]
        if byKey { settings.merge(["enable_seqscan": "off", "enable_hashjoin": "off", "enable_mergejoin": "off"]) { $1 } }
        for (name, value) in settings.sorted(by: { $0.key < $1.key }) {
            try await TestDatabase.execute("""
                DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET \(name) = %L', current_database(), '\(value)'); END $$
                """, in: url)
        }
        let deadlocksBefore = try await Self.deadlocksCounted(in: url)
        let tally = try await TestDatabase.withDatabase(url) { database in
            let app = try await StoreFixtures.app(database, "com.batch.order")
            for index in 0..<8 {
                let product = try await StoreFixtures.product(database, in: app, id: "p\(index)")
                _ = try await StoreFixtures.perform(.approve, on: product, in: app, database)
            }
            return try await withThrowingTaskGroup(of: Tally.self) { group in
                for writer in 0..<4 {
                    group.addTask {
                        var tally = Tally()
                        for _ in 0..<60 {
                            let products = try await database.products.list(app.bundleID, filter: ProductFilter(),
                                                                            after: nil, limit: 100)
                            var changes = try products.map { try Self.nextChange(of: $0, in: app) }
                            if writer % 2 == 1 { changes.reverse() }
                            do {
                                let rows = try await database.client.execute(ProductRepository.SaveStates(changes),
                                                                             logger: TestDatabase.logger)
                                var saved = 0
                                for try await _ in rows { saved += 1 }
                                tally.saved += saved
                                tally.refused += changes.count - saved
                            } catch let error as PSQLError where error.serverInfo?[.sqlState] == "40P01" {
                                tally.deadlocks += 1
                            }
                        }
                        return tally
                    }
                }
                return try await group.reduce(into: Tally()) { $0.add($1) }
            }
        }
        // The writers' connections have ended, and with them their backends, which report what they counted.
        try await Task.sleep(for: .seconds(1))
        let deadlocksAfter = try await Self.deadlocksCounted(in: url, atLeast: deadlocksBefore + tally.deadlocks)
        #expect(tally.deadlocks == 0, "\(tally)")
        #expect(deadlocksAfter == deadlocksBefore, "pg_stat_database.deadlocks went from \(deadlocksBefore) to \(deadlocksAfter)")
        // The writers raced: each batch changed the products the others had just read, so many changes were refused.
        #expect(tally.saved > 0 && tally.refused > 0, "\(tally)")
        // Every change answered saved is in the catalog, once, with its event; none answered refused is.
        try await TestDatabase.withDatabase(url) { database in
            let versions = try await StoreFixtures.values(
                "SELECT sum(version - 2)::bigint FROM products WHERE app = 'com.batch.order'", as: Int.self, in: database)
            let events = try await StoreFixtures.values(
                "SELECT count(*) FROM history_events WHERE app = 'com.batch.order' AND action IN ('submit', 'withdraw')",
                as: Int.self, in: database)
            #expect(versions == [tally.saved] && events == [tally.saved], "\(versions) \(events) \(tally)")
            let verification = try await database.history.verify(chain: "com.batch.order")
            #expect(verification.verified, "\(verification)")
        }
    }

    struct Tally: CustomStringConvertible {
        var saved = 0
        var refused = 0
        var deadlocks = 0

        mutating func add(_ other: Tally) {
            saved += other.saved
            refused += other.refused
            deadlocks += other.deadlocks
        }

        var description: String { "\(saved) changes saved, \(refused) refused, \(deadlocks) deadlocks" }
    }

    /// The deadlocks PostgreSQL counted in `url`'s database. Backends report their counts when they go idle or
    /// end, within a second or so: with `atLeast`, waits up to five seconds for the count to reach it.
    static func deadlocksCounted(in url: DatabaseURL, atLeast expected: Int = 0) async throws -> Int {
        try await TestDatabase.withClient(url) { client in
            let deadline = ContinuousClock.now + .seconds(5)
            while true {
                _ = try await client.query("SELECT pg_stat_clear_snapshot()", logger: TestDatabase.logger).collect()
                let rows = try await client.query(
                    "SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()",
                    logger: TestDatabase.logger).collect()
                let count = try rows.first?.decode(Int.self) ?? 0
                if count >= expected || ContinuousClock.now > deadline { return count }
                try await Task.sleep(for: .milliseconds(100))
            }
        }
    }
}
