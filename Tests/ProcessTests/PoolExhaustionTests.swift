import CatalogCore
import CatalogTestSupport
import Foundation
import NIOHTTP1
import Testing

/// Every database connection busy: requests wait for one in a bounded queue for a bounded time, then get
/// 503 with `Retry-After`; beyond the queue they get it at once. Nothing hangs, and once the connections
/// are free again the server serves as before.
@Suite("Connection pool exhausted")
struct PoolExhaustionTests {
    @Test("tiny pool held busy: a bounded queue, 503 with Retry-After within the wait bound, recovery after")
    func exhausted() async throws {
        let url = try await TestDatabase.forSuite("pool_exhaustion")
        let service = try await TestDatabase.serviceURL(for: url)
        let admin = try await TestKeys.make(.admin, in: url)
        let pool = 2, queue = 3, wait = 2
        let server = try await ServerProcess(databaseURL: service, migrationURL: url, environment: [
            "DATABASE_POOL_SIZE": "\(pool)", "DATABASE_QUEUE_LIMIT": "\(queue)", "DATABASE_WAIT_SECONDS": "\(wait)",
        ])
        let caller = ServiceCaller(server.baseURL)
        let app = "com.pool.app"
        try await caller.createApp(app, key: admin)
        try await caller.createProduct(app, "held", key: admin)

        // Hold every connection: reads of the product wait behind a lock on the products table.
        let lock = try await HeldLock.take("products", in: url)
        let held = (0..<pool).map { _ in
            Task { try await caller.call(.GET, "/v1/apps/\(app)/products/held", key: admin, timeout: .seconds(60)) }
        }
        try await HeldLock.waitUntil(pool, waitIn: url)

        // Now everything that needs the database waits for a connection, at most `wait` seconds, or is turned
        // away at once when the queue is full.
        let burst = 12
        let refused = try await withThrowingTaskGroup(of: Answer.self) { group in
            for _ in 0..<burst { group.addTask { try await caller.call(.GET, "/v1/apps", key: admin) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        // What needs no connection is still answered meanwhile.
        let live = try await caller.call(.GET, "/v1/health/live")
        let metrics = try await caller.call(.GET, "/metrics")
        try await lock.unlock()
        let released = try await held.asyncMap { try await $0.value }
        let after = try await caller.call(.GET, "/v1/apps", key: admin)

        #expect(refused.allSatisfy { $0.isUnavailable }, "\(refused.map { "\($0.status) \($0.body)" })")
        let queued = refused.filter { $0.duration >= .milliseconds(wait * 1000 - 100) }
        let immediate = refused.filter { $0.duration < .seconds(1) }
        // Exactly `queue` waited, and each no longer than the bound; the rest were turned away at once.
        #expect(queued.count == queue && immediate.count == burst - queue,
                "durations \(refused.map(\.duration).sorted())")
        let slowest = refused.map(\.duration).max() ?? .zero
        #expect(slowest < .seconds(wait + 1))
        #expect(live.status == 200)
        #expect(metrics.body.contains("db_pool_connections_in_use \(pool)") && metrics.body.contains("db_pool_connections_max \(pool)"))
        #expect(released.allSatisfy { $0.status == 200 })
        #expect(after.status == 200)
        let format: (Duration) -> String = { $0.formatted(.units(allowed: [.seconds, .milliseconds], width: .narrow)) }
        print("""
            pool: \(pool) connections held, queue \(queue), wait \(wait) s: of \(burst) requests \(queued.count) waited \
            and got 503 (slowest \(format(slowest))), \(immediate.count) got 503 at once; the \(pool) held requests \
            answered \(released.map(\.status)) once the lock was released; next request \(after.status)
            """)
        server.send(SIGTERM)
        #expect(try await server.waitForExit() == 0)
    }
}

extension Array {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
