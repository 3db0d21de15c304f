import PostgresNIO
import Synchronization

/// One connection for all the operations of one piece of work: leased by the first operation that needs the
/// database, given back when the work ends. An action reads the app and the product and writes the change:
/// two leases of a connection become one, and the write cannot find the pool empty after the read.
///
/// A scope covers a handler's database work only, never a whole request: a request holding its connection
/// while its client sends a large body, or while its answer is encoded, would keep the connection from others
/// (a whole-request scope made the queue for connections time out under the test suite's load).
///
/// The operations of one scope run one after another, never at once.
final class ConnectionScope: Sendable {
    private let held = Mutex<ConnectionPool.Lease?>(nil)

    /// The scope's connection, leased by `lease` the first time.
    func connection(_ lease: () async throws -> ConnectionPool.Lease) async throws -> PostgresConnection {
        if let connection = held.withLock({ $0?.connection }) { return connection }
        let leased = try await lease()
        let (connection, spare) = held.withLock { held -> (PostgresConnection, ConnectionPool.Lease?) in
            if let earlier = held { return (earlier.connection, leased) }
            held = leased
            return (leased.connection, nil)
        }
        spare?.release()
        return connection
    }

    /// Gives the connection back, if one was leased.
    func end() {
        held.withLock { $0.take() }?.release()
    }
}

extension Database {
    /// The scope the current task's operations share, if any.
    @TaskLocal static var scope: ConnectionScope?

    /// Runs `work` with all its operations on one connection, leased by the first and given back at the end;
    /// the pool's wait applies to the first. Without a pool (commands, tests) or inside a scope or an operation
    /// already, `work` just runs.
    public func withOneConnection<Result>(_ work: () async throws -> Result) async throws -> Result {
        guard pool != nil, Self.scope == nil, Self.held == nil else { return try await work() }
        let scope = ConnectionScope()
        defer { scope.end() }
        return try await Self.$scope.withValue(scope, operation: work)
    }
}
