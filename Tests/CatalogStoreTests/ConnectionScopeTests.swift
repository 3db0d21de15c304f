@testable import CatalogStore
import CatalogTestSupport
import Foundation
import PostgresNIO
import Synchronization
import Testing

/// The operations of a scope (an action's reads and write) share one connection of the pool, leased by the
/// first and given back at the end.
// The limit is there to end a hang, not to time the tests: a test here (its database made and migrated
// included) took 30 to over 60 s when the whole suite started at once on two cores.
@Suite("One connection for a scope's operations", .timeLimit(.minutes(6)))
struct ConnectionScopeTests {
    @Test("the operations of a scope run on one connection, given back at the end")
    func operationsShareOneConnection() async throws {
        try await StoreFixtures.withPool("connection_scope", size: 3) { database, pool, _ in
            let pids = try await database.withOneConnection {
                var pids: [Int32] = []
                for _ in 0..<3 {
                    pids.append(try await database.execute("SELECT pg_backend_pid()").first!.decode(Int32.self))
                    #expect(pool.load.running == 1)
                }
                let inTransaction = Mutex<Int32?>(nil)
                try await database.translatingErrors {
                    try await database.inTransaction { connection in
                        let rows = try await connection.query("SELECT pg_backend_pid()", logger: TestDatabase.logger)
                            .collect()
                        let pid = try rows.first!.decode(Int32.self)
                        inTransaction.withLock { $0 = pid }
                    }
                }
                pids.append(try #require(inTransaction.withLock { $0 }))
                return pids
            }
            #expect(Set(pids).count == 1, "\(pids)")
            #expect(pool.load.running == 0)
            // Without a scope, each operation takes and gives back its own.
            try await database.execute("SELECT 1")
            #expect(pool.load.running == 0)
        }
    }

    @Test("a scope that never needs the database takes nothing")
    func unusedScopeTakesNothing() async throws {
        try await StoreFixtures.withPool("connection_scope_unused", size: 1) { database, pool, _ in
            try await database.withOneConnection { #expect(pool.load.running == 0) }
            // The one connection is free for someone else.
            try await database.execute("SELECT 1")
        }
    }

    @Test("a scope gives its connection back when its work fails, and an error inside leaves the connection usable")
    func failureGivesBack() async throws {
        try await StoreFixtures.withPool("connection_scope_failure", size: 1) { database, pool, _ in
            struct Refused: Error {}
            let divisionRefused = Mutex(false)
            await #expect(throws: Refused.self) {
                try await database.withOneConnection {
                    do { try await database.execute("SELECT 1/0") } catch { divisionRefused.withLock { $0 = true } }
                    try await database.execute("SELECT 1")
                    throw Refused()
                }
            }
            #expect(divisionRefused.withLock { $0 })
            #expect(pool.load.running == 0)
            try await database.execute("SELECT 1")
        }
    }
}
