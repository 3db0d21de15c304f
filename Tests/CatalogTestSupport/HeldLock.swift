import CatalogStore
import Foundation
import PostgresNIO
import Synchronization

/// A table lock held in an open transaction of a connection of its own, until released: the way the
/// process tests keep the server's statements waiting (busy connections, slow requests) for as long as
/// they choose, without depending on timing.
public final class HeldLock: Sendable {
    private let release = AsyncStream<Void>.makeStream()
    private let holder = Mutex<Task<Void, any Error>?>(nil)

    private init() {}

    /// Takes `LOCK TABLE table IN mode MODE` as the superuser in `url`'s database; answers once it is held.
    public static func take(_ table: String, mode: String = "ACCESS EXCLUSIVE", in url: DatabaseURL) async throws
        -> HeldLock
    {
        let lock = HeldLock()
        let taken = AsyncThrowingStream<Void, any Error>.makeStream()
        let release = lock.release.stream
        let task = Task {
            do {
                try await TestDatabase.withClient(url, maximumConnections: 1) { client in
                    try await client.withConnection { connection in
                        _ = try await connection.query("BEGIN", logger: TestDatabase.logger).collect()
                        _ = try await connection.query(PostgresQuery(unsafeSQL: "LOCK TABLE \(table) IN \(mode) MODE"),
                                                       logger: TestDatabase.logger).collect()
                        taken.continuation.finish()
                        for await _ in release {}
                        _ = try await connection.query("COMMIT", logger: TestDatabase.logger).collect()
                    }
                }
            } catch {
                taken.continuation.finish(throwing: error)
                throw error
            }
        }
        lock.holder.withLock { $0 = task }
        for try await _ in taken.stream {}
        return lock
    }

    /// Commits the transaction, which lets the waiting statements go on.
    public func unlock() async throws {
        release.continuation.finish()
        try await holder.withLock { $0 }?.value
    }

    /// How many sessions of `url`'s database wait for a lock now.
    public static func waiting(in url: DatabaseURL) async throws -> Int {
        try await TestDatabase.withClient(url, maximumConnections: 1) { client in
            let rows = try await client.query("""
                SELECT count(*)::int FROM pg_stat_activity
                WHERE datname = current_database() AND wait_event_type = 'Lock'
                """, logger: TestDatabase.logger).collect()
            return try rows.first?.decode(Int.self) ?? 0
        }
    }

    /// Waits until at least `count` sessions wait for a lock in `url`'s database, at most `timeout`.
    public static func waitUntil(_ count: Int, waitIn url: DatabaseURL, timeout: Duration = .seconds(20))
        async throws
    {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while try await waiting(in: url) < count {
            guard clock.now < deadline else {
                throw TestSetupError("fewer than \(count) sessions waited for the lock within \(timeout)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    deinit { release.continuation.finish() }
}
