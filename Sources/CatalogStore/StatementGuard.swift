import PostgresNIO
import Synchronization

extension PostgresConnection {
    /// Runs `operation`, one statement on this connection, without ever waiting for an answer that cannot come.
    ///
    /// On the connection's own event loop the statement is written to the channel at once, in the same turn
    /// of the loop as this check: a connection that is open now still has its handlers, which answer every
    /// statement, if only with an error when it closes. Elsewhere the write happens later, on the loop, and
    /// the statement is watched instead (``unlessClosed(_:)``). `iap-server serve` runs its tasks on the event
    /// loops and ``ConnectionPool`` leases connections of the loop a request runs on, so the first case is the
    /// common one.
    func guarded<Result: Sendable>(_ operation: @escaping @Sendable () async throws -> Result) async throws -> Result {
        if eventLoop.inEventLoop {
            guard !isClosed else { throw StoreUnavailable(description: "the database closed the connection") }
            return try await operation()
        }
        return try await unlessClosed(operation)
    }

    /// Runs `operation` (statements on this connection) but gives up with ``StoreUnavailable`` as soon as the
    /// connection closes.
    ///
    /// PostgresNIO 1.33 hands a statement to its channel without a promise for the write: a statement written
    /// just after the database ended the connection (a restart, a failover: "terminating connection due to
    /// administrator command") is dropped by the closed channel and its answer never comes. The request that
    /// sent it would hang, and graceful shutdown behind it. Such a statement is left to wait for nothing,
    /// while the request is answered 503 like any other that meets a database that went away.
    func unlessClosed<Result: Sendable>(
        _ operation: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        let outcome = FirstOutcome<Result>()
        let watch = ClosingConnections.shared.watch(self) {
            outcome.finish(.failure(StoreUnavailable(description: "the database closed the connection")))
        }
        defer { ClosingConnections.shared.unwatch(watch) }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                outcome.set(continuation)
                let running = Task {
                    do { outcome.finish(.success(try await operation())) } catch { outcome.finish(.failure(error)) }
                }
                outcome.onCancel { running.cancel() }
            }
        } onCancel: {
            outcome.cancel()
        }
    }
}

/// The operations running on each open connection, told at once when it closes. One callback per connection
/// on its `closeFuture` (registered when an operation first runs on it, dropped when it closes): a callback per
/// operation would pile up on a pooled connection for as long as it lives.
final class ClosingConnections: Sendable {
    static let shared = ClosingConnections()

    /// A connection: its object and its id in the pool (an object's address may be reused once it is gone).
    struct Key: Hashable {
        let object: ObjectIdentifier
        let id: PostgresConnection.ID

        init(_ connection: PostgresConnection) {
            object = ObjectIdentifier(connection)
            id = connection.id
        }
    }

    struct Watch {
        let connection: Key
        let id: UInt64
    }

    private struct State {
        var nextID: UInt64 = 0
        var running: [Key: [UInt64: @Sendable () -> Void]] = [:]
    }

    private let state = Mutex(State())

    /// Calls `closed` if `connection` closes before ``unwatch(_:)``.
    func watch(_ connection: PostgresConnection, closed: @escaping @Sendable () -> Void) -> Watch {
        let key = Key(connection)
        let (watch, first) = state.withLock { state -> (Watch, Bool) in
            state.nextID += 1
            let first = state.running[key] == nil
            state.running[key, default: [:]][state.nextID] = closed
            return (Watch(connection: key, id: state.nextID), first)
        }
        if first {
            connection.closeFuture.whenComplete { _ in self.closed(key) }
        }
        return watch
    }

    /// How many operations wait on `connection` closing, for tests.
    func operations(on connection: PostgresConnection) -> Int {
        state.withLock { $0.running[Key(connection)]?.count ?? 0 }
    }

    func unwatch(_ watch: Watch) {
        state.withLock { _ = $0.running[watch.connection]?.removeValue(forKey: watch.id) }
    }

    private func closed(_ key: Key) {
        let running = state.withLock { $0.running.removeValue(forKey: key) } ?? [:]
        for closed in running.values { closed() }
    }
}

/// The first of several outcomes racing to answer one continuation; the later ones are dropped, and nothing is
/// kept once it is answered.
private final class FirstOutcome<Value: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Value, any Error>?
        /// An outcome that came before the continuation was set (a connection seen closed at once).
        var early: Result<Value, any Error>?
        var answered = false
        var cancelled = false
        var cancelRunning: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())

    func set(_ continuation: CheckedContinuation<Value, any Error>) {
        let early = state.withLock { state -> Result<Value, any Error>? in
            guard let early = state.early else {
                state.continuation = continuation
                return nil
            }
            state.early = nil
            state.answered = true
            return early
        }
        if let early { continuation.resume(with: early) }
    }

    func finish(_ result: Result<Value, any Error>) {
        let continuation = state.withLock { state -> CheckedContinuation<Value, any Error>? in
            guard !state.answered else { return nil }
            guard let continuation = state.continuation else {
                if state.early == nil { state.early = result }
                return nil
            }
            state.continuation = nil
            state.cancelRunning = nil
            state.answered = true
            return continuation
        }
        continuation?.resume(with: result)
    }

    func onCancel(_ cancelRunning: @escaping @Sendable () -> Void) {
        let cancelNow = state.withLock { state -> Bool in
            guard !state.answered else { return false }
            state.cancelRunning = cancelRunning
            return state.cancelled
        }
        if cancelNow { cancelRunning() }
    }

    func cancel() {
        let cancelRunning = state.withLock { state -> (@Sendable () -> Void)? in
            state.cancelled = true
            return state.cancelRunning
        }
        cancelRunning?()
    }
}
