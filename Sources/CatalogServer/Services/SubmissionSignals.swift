import Foundation
import ServiceLifecycle
import Synchronization

/// What this process tells itself about submissions, without the database: a receipt was queued (the
/// verification worker may start at once instead of at its next poll), an outcome was recorded (requests
/// waiting with `?wait=N` answer at once). Outcomes recorded by another process reach a waiting request by its
/// polling (``wait(for:until:poll:read:)``).
final class SubmissionSignals: Sendable {
    private struct State {
        var waiters: [UUID: [ObjectIdentifier: Slot]] = [:]
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
        let slots = state.withLock { $0.waiters.removeValue(forKey: id) } ?? [:]
        for slot in slots.values { slot.signal() }
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
            let slot = Slot()
            state.withLock { $0.waiters[id, default: [:]][ObjectIdentifier(slot)] = slot }
            defer { forget(slot, of: id) }
            guard let value = try await read() else { return nil }
            let now = clock.now
            if isSettled(value) || now >= deadline || Task.isCancelled || Task.isShuttingDownGracefully {
                return value
            }
            let wakeUp = min(deadline, now.advanced(by: poll))
            let timer = Task {
                try? await Task.sleep(until: wakeUp, clock: .continuous)
                slot.signal()
            }
            await withGracefulShutdownHandler {
                await withTaskCancellationHandler { await slot.wait() } onCancel: { slot.signal() }
            } onGracefulShutdown: {
                slot.signal()
            }
            timer.cancel()
        }
    }

    private func forget(_ slot: Slot, of id: UUID) {
        state.withLock { state in
            state.waiters[id]?.removeValue(forKey: ObjectIdentifier(slot))
            if state.waiters[id]?.isEmpty == true { state.waiters[id] = nil }
        }
    }

    /// One wait of one request: signalled once, by the outcome, its poll timer or its cancellation, whichever
    /// comes first; a signal before the wait begins ends it at once.
    private final class Slot: Sendable {
        private enum Phase {
            case idle
            case waiting(CheckedContinuation<Void, Never>)
            case signalled
        }

        private let phase = Mutex(Phase.idle)

        func signal() {
            let continuation = phase.withLock { phase -> CheckedContinuation<Void, Never>? in
                defer { phase = .signalled }
                if case .waiting(let continuation) = phase { return continuation }
                return nil
            }
            continuation?.resume()
        }

        func wait() async {
            await withCheckedContinuation { continuation in
                let now = phase.withLock { phase -> Bool in
                    if case .signalled = phase { return true }
                    phase = .waiting(continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        }
    }
}
