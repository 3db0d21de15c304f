@testable import CatalogStore
import CatalogTestSupport
import Foundation
import PostgresNIO
import Testing

/// A connection the database ends (a restart, a failover, `pg_terminate_backend`) while an operation holds it:
/// the operation's next statement fails as "unavailable" at once. PostgresNIO drops a statement written to a
/// closed connection without ever answering it; without the guard this test waits forever.
// The limit is there to end a hang, not to time the tests: a test here (its database made and migrated
// included) took 30 to over 60 s when the whole suite started at once on two cores.
@Suite("Connection ended by the database", .timeLimit(.minutes(6)))
struct EndedConnectionTests {
    @Test("a statement on a held connection the database ended is 'unavailable', never left waiting")
    func statementOnEndedConnection() async throws {
        try await StoreFixtures.withPool("ended_connection", size: 2) { database, pool, url in
            let outcome = try await database.translatingErrors { () async throws -> String in
                let held = try await endHeldConnection(database, url)
                #expect(held.isClosed)
                do {
                    try await database.execute("SELECT 1")
                    return "answered"
                } catch let error as StoreUnavailable {
                    return "unavailable: \(error)"
                }
            }
            #expect(outcome.hasPrefix("unavailable"), "\(outcome)")
            // The pool gives the ended connection up; the next operation is served.
            #expect(try await !database.appliedMigrations().isEmpty)
            #expect(pool.load.running == 0)
        }
    }

    @Test("a transaction on a held connection the database ended is 'unavailable', never left waiting")
    func transactionOnEndedConnection() async throws {
        try await StoreFixtures.withPool("ended_connection_transaction", size: 2) { database, pool, url in
            let thrown = await #expect(throws: StoreUnavailable.self) {
                try await database.translatingErrors {
                    try await endHeldConnection(database, url)
                    try await database.inTransaction { connection in
                        _ = try await connection.query("SELECT 1", logger: TestDatabase.logger).collect()
                    }
                }
            }
            #expect(thrown != nil)
            #expect(pool.load.running == 0)
        }
    }

    @Test("operations watch their connection for closing without leaving anything behind")
    func watchesAreDropped() async throws {
        try await StoreFixtures.withPool("ended_connection_watches", size: 2, maxWaiting: 100,
                                         timeout: .seconds(120)) { database, _, _ in
            let used = try await withThrowingTaskGroup(of: PostgresConnection.self) { group in
                for _ in 0..<40 {
                    group.addTask {
                        try await database.translatingErrors {
                            try await database.execute("SELECT 1")
                            return try #require(Database.held)
                        }
                    }
                }
                return try await group.reduce(into: [ObjectIdentifier: PostgresConnection]()) { $0[ObjectIdentifier($1)] = $1 }
            }
            #expect(!used.isEmpty)
            for connection in used.values {
                #expect(ClosingConnections.shared.operations(on: connection) == 0)
            }
        }
    }

    /// Has the database end the connection the running operation holds, and waits (10 s at most) until the
    /// client sees it closed.
    @discardableResult
    private func endHeldConnection(_ database: Database, _ url: DatabaseURL) async throws -> PostgresConnection {
        let pid = try await database.execute("SELECT pg_backend_pid()").first!.decode(Int32.self)
        try await TestDatabase.execute("SELECT pg_terminate_backend(\(pid))", in: url)
        let held = try #require(Database.held)
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(10)
        while !held.isClosed && clock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        return held
    }
}
