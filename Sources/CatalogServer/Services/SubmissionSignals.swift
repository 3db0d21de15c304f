import CatalogStore
import Foundation
import ServiceLifecycle
import Synchronization

/// What this process tells itself about submissions, without the database: a receipt was queued (the
/// verification worker may start at once instead of at its next poll), an outcome was recorded (requests
/// waiting with `?wait=N` answer at once). Outcomes recorded by another process reach a waiting request by its
/// polling (``wait(for:until:poll:read:)``).
final class SubmissionSignals: Sendable {
    private struct State {
        var waiters: [UUID: [ObjectIdentifier: Wakeup]] = [:]
        var queuedListeners: [Int: @Sendable () -> Void] = [:]
        var nextListener = 0
    }

    private let state = Mutex(State())

    // MARK: Receipts queued

    /// Says that receipts were queued or made due now (intake, an operator's retry).
    func receiptsQueued() {
        let listeners = state.withLock { Array($0.queuedListeners.values) }
        for listener in listeners { listener() }
    }

    /// Calls `listener` whenever receipts are queued in this process, until the returned token is passed to
    /// ``stopListening(_:)`` (the verification worker wakes up with it).
    func onReceiptsQueued(_ listener: @escaping @Sendable () -> Void) -> Int {
        state.withLock { state in
            state.nextListener += 1
            state.queuedListeners[state.nextListener] = listener
            return state.nextListener
        }
    }

    func stopListening(_ token: Int) {
        _ = state.withLock { $0.queuedListeners.removeValue(forKey: token) }
    }

    // MARK: Outcomes

    /// Says that the outcome of submission `id` was recorded (or its status changed): every request waiting for
    /// it reads it again now.
    func outcomeRecorded(_ id: UUID) {
        let wakeups = state.withLock { $0.waiters.removeValue(forKey: id) } ?? [:]
        for wakeup in wakeups.values { wakeup.wake() }
    }

    /// How many requests wait for an outcome, for tests and metrics.
    var waiting: Int { state.withLock { $0.waiters.values.reduce(0) { $0 + $1.count } } }

    /// Reads the submission with `read` until `isSettled` says it is, or `deadline` passes: again each time its
    /// outcome is signalled in this process, and at least every `poll` (outcomes of other processes). Answers the
    /// last read, `nil` when `read` finds nothing. A server that begins to stop answers what it reads then, so
    /// that waiting reads do not hold it for their whole `?wait=N`; their clients ask again.
    func wait<Value: Sendable>(for id: UUID, until deadline: ContinuousClock.Instant, poll: Duration,
                               isSettled: (Value) -> Bool, read: () async throws -> Value?) async throws -> Value? {
        let clock = ContinuousClock()
        while true {
            // Registered before the read, so that an outcome recorded between the read and the wait is not missed.
            let wakeup = Wakeup()
            state.withLock { $0.waiters[id, default: [:]][ObjectIdentifier(wakeup)] = wakeup }
            defer { forget(wakeup, of: id) }
            guard let value = try await read() else { return nil }
            let now = clock.now
            if isSettled(value) || now >= deadline || Task.isCancelled || Task.isShuttingDownGracefully {
                return value
            }
            _ = await withGracefulShutdownHandler {
                await wakeup.wait(for: min(deadline, now.advanced(by: poll)) - now)
            } onGracefulShutdown: {
                wakeup.wake()
            }
        }
    }

    private func forget(_ wakeup: Wakeup, of id: UUID) {
        state.withLock { state in
            state.waiters[id]?.removeValue(forKey: ObjectIdentifier(wakeup))
            if state.waiters[id]?.isEmpty == true { state.waiters[id] = nil }
        }
    }
}
