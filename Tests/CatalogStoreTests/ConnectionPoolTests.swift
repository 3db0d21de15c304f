@testable import CatalogStore
import CatalogTestSupport
import Foundation
import PostgresNIO
import Testing

/// The service's connections: kept open and reused, never more than the pool's size, waits bounded in number
/// and in time, a database that cannot be reached refused at once, closed connections replaced.
// The limit is there to end a hang, not to time the tests: a test here (its database made and migrated
// included) took 30 to over 60 s when the whole suite started at once on two cores.
@Suite("Connection pool", .timeLimit(.minutes(6)))
struct ConnectionPoolTests {
    static func pid(_ database: Database) async throws -> Int32 {
        try await database.execute("SELECT pg_backend_pid()").first!.decode(Int32.self)
    }

    @Test("operations one after another reuse one open connection, given back each time")
    func reusesConnections() async throws {
        try await StoreFixtures.withPool("pool_reuse", size: 4) { database, pool, _ in
            var pids: Set<Int32> = []
            for _ in 0..<20 { pids.insert(try await Self.pid(database)) }
            #expect(pids.count == 1, "\(pids)")
            #expect(pool.load.running == 0)
        }
    }

    @Test("at most `size` operations hold a connection at once; the others wait their turn and are served")
    func boundsConnections() async throws {
        try await StoreFixtures.withPool("pool_bound", size: 2, maxWaiting: 20, timeout: .seconds(60)) { database, pool, _ in
            let seen = try await withThrowingTaskGroup(of: (pid: Int32, running: Int).self) { group in
                for _ in 0..<12 {
                    group.addTask {
                        try await database.translatingErrors {
                            let running = pool.load.running
                            let pid = try await database.execute("SELECT pg_backend_pid() FROM pg_sleep(0.02)").first!
                                .decode(Int32.self)
                            return (pid, running)
                        }
                    }
                }
                return try await group.reduce(into: [(pid: Int32, running: Int)]()) { $0.append($1) }
            }
            #expect(seen.count == 12)
            #expect(Set(seen.map(\.pid)).count <= 2, "\(seen)")
            #expect(seen.allSatisfy { $0.running <= 2 }, "\(seen)")
            #expect(pool.load.running == 0 && pool.load.waiting == 0)
        }
    }

    @Test("with every connection held and the queue full, an operation is refused at once as unavailable")
    func refusesBeyondQueue() async throws {
        try await StoreFixtures.withPool("pool_queue_full", size: 1, maxWaiting: 0) { database, pool, _ in
            let held = try await pool.lease()
            let clock = ContinuousClock()
            let start = clock.now
            await #expect(throws: StoreUnavailable.self) { _ = try await Self.pid(database) }
            #expect(clock.now - start < .seconds(1))
            held.release()
            #expect(pool.load.running == 0)
            _ = try await Self.pid(database)
        }
    }

    @Test("of many operations arriving at once for a busy pool, exactly the queue's size wait; the rest are refused at once")
    func queueBoundUnderRace() async throws {
        try await StoreFixtures.withPool("pool_queue_race", size: 1, maxWaiting: 3, timeout: .milliseconds(500)) {
            database, pool, _ in
            let held = try await pool.lease()
            let durations = try await withThrowingTaskGroup(of: Duration.self) { group in
                for _ in 0..<10 {
                    group.addTask {
                        let clock = ContinuousClock()
                        let start = clock.now
                        do { _ = try await Self.pid(database) } catch is StoreUnavailable {}
                        return clock.now - start
                    }
                }
                return try await group.reduce(into: [Duration]()) { $0.append($1) }
            }
            held.release()
            #expect(durations.filter { $0 >= .milliseconds(500) }.count == 3, "\(durations.sorted())")
            #expect(durations.filter { $0 < .milliseconds(400) }.count == 7, "\(durations.sorted())")
            #expect(pool.load.waiting == 0 && pool.load.running == 0)
        }
    }

    @Test("a waiter whose wait is over is refused as unavailable and leaves the queue")
    func waitEnds() async throws {
        try await StoreFixtures.withPool("pool_wait_ends", size: 1, maxWaiting: 1, timeout: .milliseconds(200)) {
            database, pool, _ in
            let held = try await pool.lease()
            let clock = ContinuousClock()
            let start = clock.now
            await #expect(throws: StoreUnavailable.self) { _ = try await Self.pid(database) }
            #expect(clock.now - start >= .milliseconds(200))
            #expect(clock.now - start < .seconds(10), "the waiter is refused when its wait is over, not never")
            #expect(pool.load.waiting == 0)
            held.release()
            #expect(pool.load.running == 0)
        }
    }

    @Test("a waiter that is cancelled leaves the queue; the connection goes to the next one")
    func cancelledWaiter() async throws {
        try await StoreFixtures.withPool("pool_cancelled", size: 1, maxWaiting: 4, timeout: .seconds(60)) {
            database, pool, _ in
            let held = try await pool.lease()
            let waiting = Task { try await Self.pid(database) }
            while pool.load.waiting == 0 { try await Task.sleep(for: .milliseconds(5)) }
            waiting.cancel()
            await #expect(throws: CancellationError.self) { try await waiting.value }
            #expect(pool.load.waiting == 0)
            held.release()
            _ = try await Self.pid(database)
            #expect(pool.load.running == 0)
        }
    }

    @Test("a database that cannot be reached is refused at once, not at the end of the wait")
    func unreachable() async throws {
        // Port 1: nothing listens there, so every attempt to connect is refused at once.
        let url = try DatabaseURL("postgres://nobody@127.0.0.1:1/nothing?sslmode=disable")
        let pool = ConnectionPool(configuration: try url.connectionConfiguration(), size: 2, maxWaiting: 10,
                                  waitTimeout: .seconds(30), logger: TestDatabase.logger)
        await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await pool.run() }
            defer { group.cancelAll() }
            let clock = ContinuousClock()
            for _ in 0..<3 {
                let start = clock.now
                await #expect(throws: StoreUnavailable.self) { _ = try await pool.lease() }
                #expect(clock.now - start < .seconds(5))
            }
            #expect(pool.load.running == 0 && pool.load.waiting == 0)
        }
    }

    @Test("a refusal says why the database refused the connection, not PostgresNIO's generic sentence")
    func refusalNamesTheReason() async throws {
        let url = try await TestDatabase.forSuite("pool_reason")
        let missing = url.with(database: "pool_reason_none")
        let pool = ConnectionPool(configuration: try missing.connectionConfiguration(), size: 1, maxWaiting: 1,
                                  waitTimeout: .seconds(30), logger: TestDatabase.logger)
        await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await pool.run() }
            defer { group.cancelAll() }
            let error = await #expect(throws: StoreUnavailable.self) { _ = try await pool.lease() }
            // 3D000: invalid_catalog_name, the database does not exist.
            #expect(error?.description.contains("SQLSTATE 3D000") == true, "\(String(describing: error))")
            #expect(error?.description.contains("Generic description") == false)
        }
    }

    @Test("a connection the database ended while idle is replaced by the next operation")
    func replacesClosed() async throws {
        try await StoreFixtures.withPool("pool_replaces", size: 1) { database, pool, url in
            let first = try await Self.pid(database)
            try await TestDatabase.execute("SELECT pg_terminate_backend(\(first))", in: url)
            let clock = ContinuousClock()
            let deadline = clock.now + .seconds(20)
            var second: Int32?
            // The termination reaches the idle connection some time later: until then it may still be leased,
            // and its statement is refused as unavailable.
            while second == nil || second == first, clock.now < deadline {
                second = try? await Self.pid(database)
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(second != nil && second != first)
            #expect(pool.load.running == 0)
        }
    }

    @Test("once the pool has stopped, leases are refused")
    func stops() async throws {
        let url = try await TestDatabase.forSuite("pool_stops")
        let pool = ConnectionPool(configuration: try url.connectionConfiguration(), size: 2, maxWaiting: 2,
                                  waitTimeout: .seconds(5), logger: TestDatabase.logger)
        let running = Task { await pool.run() }
        let lease = try await pool.lease()
        lease.release()
        running.cancel()
        await running.value
        await #expect(throws: StoreUnavailable.self) { _ = try await pool.lease() }
    }
}
