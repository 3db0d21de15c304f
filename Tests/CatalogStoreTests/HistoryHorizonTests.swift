import CatalogCore
import CatalogStore
import CatalogTestSupport
import Foundation
import PostgresNIO
import Testing

/// The horizon that makes history pages stable: only this database's running writers hold it back. Serialized:
/// a test writing in this database holds back the horizon of another running at the same time, by design.
@Suite("History horizon", .serialized)
struct HistoryHorizonTests {
    @Test("a writer still running in this database keeps newer events out of listings; one in another database does not")
    func horizonCountsThisDatabaseOnly() async throws {
        let url = try await TestDatabase.forSuite("history_horizon")
        let other = try await TestDatabase.empty("history_horizon_other")
        try await TestDatabase.withDatabase(url) { database in
            let app = try await StoreFixtures.app(database, "com.horizon")
            // A writing transaction left open in another database of the same cluster.
            try await Self.holdingWriter(other) {
                _ = try await StoreFixtures.product(database, in: app, id: "after.other.writer")
                #expect(try await Self.listed(database).contains("after.other.writer"))
            }
            // A writing transaction left open in this database: events committed after it began wait for it.
            try await Self.holdingWriter(url) {
                _ = try await StoreFixtures.product(database, in: app, id: "after.own.writer")
                #expect(try await !Self.listed(database).contains("after.own.writer"))
            }
            #expect(try await Self.listed(database).contains("after.own.writer"))
        }
    }

    @Test("an export walks every event across its batches, in order, once", arguments: [1, 2, 3, 7, 1_000])
    func exportCrossesBatches(batchSize: Int) async throws {
        let url = try await TestDatabase.forSuite("history_horizon")
        try await TestDatabase.withDatabase(url) { database in
            let app = try await StoreFixtures.app(database, "com.horizon.export.\(batchSize)")
            for index in 0..<6 { _ = try await StoreFixtures.product(database, in: app, id: "p\(index)") }
            let filter = HistoryFilter(app: app.bundleID)
            for newestFirst in [false, true] {
                var sequences: [Int64] = []
                for try await event in try await database.history.export(filter, newestFirst: newestFirst, batchSize: batchSize) {
                    sequences.append(event.sequence)
                }
                #expect(sequences.count == 7, "app_created and six creations")
                #expect(sequences == (newestFirst ? sequences.sorted(by: >) : sequences.sorted()))
                #expect(Set(sequences).count == sequences.count)
            }
        }
    }

    /// The product ids of a first page of the whole history, as `GET /v1/history` asks for it.
    private static func listed(_ database: Database) async throws -> [String] {
        let position = HistoryPosition(horizon: try await database.history.currentHorizon(), afterSequence: nil)
        return try await database.history.list(HistoryFilter(), newestFirst: true, from: position, limit: 100)
            .compactMap(\.record.productID)
    }

    /// Runs `body` while a transaction that has written (and so holds a transaction id) is open in `url`'s database.
    private static func holdingWriter(_ url: DatabaseURL, _ body: @Sendable () async throws -> Void) async throws {
        try await TestDatabase.withClient(url, maximumConnections: 1) { client in
            try await client.withConnection { connection in
                for statement in ["BEGIN", "CREATE TEMPORARY TABLE held (x int)"] {
                    _ = try await connection.query(PostgresQuery(unsafeSQL: statement), logger: connection.logger).collect()
                }
                do {
                    try await body()
                } catch {
                    _ = try? await connection.query("ROLLBACK", logger: connection.logger).collect()
                    throw error
                }
                _ = try await connection.query("ROLLBACK", logger: connection.logger).collect()
            }
        }
    }
}
