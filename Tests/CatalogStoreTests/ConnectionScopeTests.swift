@testable import CatalogStore
import CatalogTestSupport
import Foundation
import PostgresNIO
import Synchronization
import Testing

/// The operations of a scope (an action's reads and write) share one connection and one permit of the gate,
/// leased by the first and given back at the end; the waits for a permit end on time (`Alarm`).
// The limit is there to end a hang, not to time the tests: a test here (its database made and migrated
// included) took 30 to over 60 s when the whole suite started at once on two cores.
@Suite("One connection for a scope's operations; waits that end on time", .timeLimit(.minutes(3)))
struct ConnectionScopeTests {
    @Test("the operations of a scope run on one connection, with one permit, given back at the end")
    func operationsShareOneConnection() async throws {
        try await StoreFixtures.withGate("connection_scope", permits: 3) { database, gate, _ in
            let pids = try await database.withOneConnection {
                var pids: [Int32] = []
                for _ in 0..<3 {
                    pids.append(try await database.execute("SELECT pg_backend_pid()").first!.decode(Int32.self))
                    #expect(gate.load.running == 1)
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
            #expect(gate.load.running == 0)
            // Without a scope, each operation takes and gives back its own.
            try await database.execute("SELECT 1")
            #expect(gate.load.running == 0)
        }
    }

    @Test("a scope that never needs the database takes nothing")
    func unusedScopeTakesNothing() async throws {
        try await StoreFixtures.withGate("connection_scope_unused", permits: 1) { database, gate, _ in
            try await database.withOneConnection { #expect(gate.load.running == 0) }
            // The one permit is free for someone else.
            try await database.execute("SELECT 1")
        }
    }

    @Test("a scope gives its connection back when its work fails, and an error inside leaves the connection usable")
    func failureGivesBack() async throws {
        try await StoreFixtures.withGate("connection_scope_failure", permits: 1) { database, gate, _ in
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
            #expect(gate.load.running == 0)
            try await database.execute("SELECT 1")
        }
    }

    @Test("an alarm rings once after its delay; a cancelled one never rings")
    func alarms() async throws {
        let rung = Mutex<[String]>([])
        let clock = ContinuousClock()
        let start = clock.now
        let ringing = Alarm(after: .milliseconds(50)) { rung.withLock { $0.append("ringing") } }
        let cancelled = Alarm(after: .milliseconds(50)) { rung.withLock { $0.append("cancelled") } }
        cancelled.cancel()
        while rung.withLock({ $0.isEmpty }) && clock.now - start < .seconds(5) {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(clock.now - start >= .milliseconds(50))
        try await Task.sleep(for: .milliseconds(200))
        #expect(rung.withLock { $0 } == ["ringing"])
        ringing.cancel()
    }

    @Test("a waiter whose wait ends is refused as unavailable and leaves the queue")
    func waiterTimesOut() async throws {
        let gate = AdmissionGate(permits: 1, maxWaiting: 1, timeout: .milliseconds(100))
        try await gate.acquire()
        let clock = ContinuousClock()
        let start = clock.now
        await #expect(throws: StoreUnavailable.self) { try await gate.acquire() }
        #expect(clock.now - start >= .milliseconds(100))
        #expect(gate.load.waiting == 0)
        gate.release()
        #expect(gate.load.running == 0)
    }
}
