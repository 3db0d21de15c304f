import Synchronization

/// Opened once this process's migrations are applied (``buildApplication(_:)``'s `beforeServerStarts`), for the
/// services that start beside them and prepare statements: PostgresNIO keeps a statement that failed to prepare
/// (its table not made yet, on a new database) failed on that connection for good, so the receipt worker, leasing
/// before the migrations of a new database were applied, verified nothing until the process restarted.
final class SchemaReady: Sendable {
    private struct State {
        var isOpen = false
        var nextID: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var cancelled: Set<UInt64> = []
    }

    private let state = Mutex(State())

    /// Whether the migrations are applied.
    var isOpen: Bool { state.withLock { $0.isOpen } }

    /// The migrations are applied: every wait ends, now and later.
    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the migrations are applied, or as soon as the task is cancelled (then ``isOpen`` may be false).
    func wait() async {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state in
                    if state.isOpen || state.cancelled.contains(id) { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                state.cancelled.insert(id)
                return state.waiters.removeValue(forKey: id)
            }
            waiter?.resume()
        }
    }
}
