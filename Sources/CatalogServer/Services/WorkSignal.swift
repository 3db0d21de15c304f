import Synchronization

/// The verification worker's wake-up: rung when work may be waiting (this process queued a receipt, an operator
/// retried one, a leased place came free, the service is stopping). A ring while nobody waits is kept for the
/// next wait, so that nothing rung between a lease and the wait after it is missed. One waiter at a time.
final class WorkSignal: Sendable {
    private struct State {
        var rung = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    func ring() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.rung = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns once rung (or if rung since the last wait), after `duration` at most, or when the task is cancelled.
    func wait(upTo duration: Duration) async {
        let rung = state.withLock { state in
            defer { state.rung = false }
            return state.rung
        }
        guard !rung, duration > .zero else { return }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: duration) }
            group.addTask { await self.park() }
            await group.next()
            group.cancelAll()
        }
    }

    private func park() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    // Cancelled before the handler could find a waiter to resume: honour it here.
                    if Task.isCancelled { return true }
                    if state.rung {
                        state.rung = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
    }
}
