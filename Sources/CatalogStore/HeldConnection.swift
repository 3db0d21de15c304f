import PostgresNIO
import Synchronization

/// A database connection held for one operation: a permit of the ``AdmissionGate`` and a connection leased
/// from the pool, both given back by ``release()`` (or when the holder is dropped, for a stream whose reader
/// goes away).
///
/// PostgresNIO's pool keeps a request for a connection waiting for as long as it keeps failing to connect
/// (up to a minute before it gives up): a database that is down would hold every request that long. The
/// lease here is bounded instead, so that such a request is answered 503 within the gate's wait.
final class HeldConnection: Sendable {
    let connection: PostgresConnection
    private let giveBack: Mutex<(@Sendable () -> Void)?>

    init(connection: PostgresConnection, giveBack: @escaping @Sendable () -> Void) {
        self.connection = connection
        self.giveBack = Mutex(giveBack)
    }

    /// Gives the connection back to the pool and the permit to the gate; later calls do nothing.
    func release() {
        giveBack.withLock { $0.take() }?()
    }

    deinit { release() }

    /// Leases a connection from `client` within `timeout`. The lease is held by a task of its own, which
    /// hands the connection over and keeps the lease until `release` is called; if the connection does not
    /// come in time, that task's request is cancelled, which takes it out of the pool's queue.
    static func lease(from client: PostgresClient, within timeout: Duration)
        async throws -> (connection: PostgresConnection, release: @Sendable () -> Void)
    {
        let (handOver, handing) = AsyncThrowingStream.makeStream(of: PostgresConnection.self)
        let (done, finishing) = AsyncStream.makeStream(of: Never.self)
        let holder = Task {
            do {
                try await client.withConnection { connection in
                    handing.yield(connection)
                    handing.finish()
                    for await _ in done {}
                }
            } catch {
                handing.finish(throwing: error)
            }
        }
        let timer = Task {
            try await Task.sleep(for: timeout)
            let milliseconds = timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000
            handing.finish(throwing: StoreUnavailable(
                description: "no database connection could be had within \(milliseconds) ms"))
        }
        defer { timer.cancel() }
        do {
            var iterator = handOver.makeAsyncIterator()
            guard let connection = try await withTaskCancellationHandler(
                operation: { try await iterator.next() }, onCancel: { holder.cancel() })
            else { throw CancellationError() }
            return (connection, { finishing.finish() })
        } catch {
            finishing.finish()
            holder.cancel()
            if error is StoreUnavailable || error is CancellationError { throw error }
            // The pool's own refusals (its circuit breaker, a failed connection attempt): the database is away.
            throw StoreUnavailable(description: "the database is unavailable (\(String(describing: error).prefix(200)))")
        }
    }
}
