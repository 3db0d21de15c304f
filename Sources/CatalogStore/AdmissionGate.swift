import Synchronization

/// Lets at most `permits` database operations run at once, queues at most `maxWaiting` more for at most
/// `timeout`, and turns everything beyond that away at once: a saturated or unreachable database makes
/// requests fail quickly with "unavailable" instead of piling up and hanging.
public final class AdmissionGate: Sendable {
    /// How many operations run and wait now, for metrics.
    public struct Load: Sendable {
        public let running: Int
        public let waiting: Int
    }

    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Void, any Error>
        /// Gives the waiter up when the wait is over.
        let timeout: Alarm
    }

    private struct State {
        var available: Int
        var waiters: [Waiter] = []
        var nextID: UInt64 = 0
    }

    public let permits: Int
    public let maxWaiting: Int
    public let timeout: Duration
    private let state: Mutex<State>

    public init(permits: Int, maxWaiting: Int, timeout: Duration) {
        self.permits = permits
        self.maxWaiting = maxWaiting
        self.timeout = timeout
        state = Mutex(State(available: permits))
    }

    public var load: Load {
        state.withLock { Load(running: permits - $0.available, waiting: $0.waiters.count) }
    }

    /// Takes a permit, waiting at most `timeout` in a queue of at most `maxWaiting`; each call is paired with
    /// one ``release()`` (``Database`` holds a permit with its connection, see ``HeldConnection``).
    func acquire() async throws {
        let id = state.withLock { state -> UInt64? in
            if state.available > 0 {
                state.available -= 1
                return nil
            }
            state.nextID += 1
            return state.nextID
        }
        guard let id else { return }
        let timeout = timeout
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let queued = state.withLock { state -> Bool in
                    if state.available > 0 {
                        state.available -= 1
                        continuation.resume()
                        return true
                    }
                    guard state.waiters.count < maxWaiting else { return false }
                    // Set under the lock, so that it cannot ring before the waiter is in the queue.
                    let alarm = Alarm(after: timeout) { [weak self] in
                        self?.abandon(id, StoreUnavailable(
                            description: "no database connection became free within \(timeout.components.seconds) s"))
                    }
                    state.waiters.append(Waiter(id: id, continuation: continuation, timeout: alarm))
                    return true
                }
                guard queued else {
                    continuation.resume(throwing: StoreUnavailable(
                        description: "the database is saturated: \(maxWaiting) requests are already waiting"))
                    return
                }
            }
        } onCancel: {
            abandon(id, CancellationError())
        }
    }

    /// Gives up a waiter that is still queued (timed out or cancelled).
    private func abandon(_ id: UInt64, _ error: any Error) {
        let waiter = state.withLock { state -> Waiter? in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return state.waiters.remove(at: index)
        }
        waiter?.timeout.cancel()
        waiter?.continuation.resume(throwing: error)
    }

    /// Gives a permit back, to the longest waiter if there is one.
    func release() {
        let next = state.withLock { state -> Waiter? in
            if state.waiters.isEmpty {
                state.available += 1
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.timeout.cancel()
        next?.continuation.resume()
    }
}
