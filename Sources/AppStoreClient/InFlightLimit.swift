import DequeModule
import Synchronization

/// At most `limit` holders at once (calls to the App Store in flight); up to `waitingLimit` more callers wait
/// for a place in arrival order, and beyond them a caller is turned away at once.
///
/// Why a bound on waiting too: a waiting caller holds memory (its task and its receipt), so an unbounded line
/// is an unbounded queue in memory. The queue worker leases at most `limit` submissions, so it never waits
/// here; the line only smooths several callers sharing one client.
final class InFlightLimit: Sendable {
    /// How a caller fared.
    enum Admission: Sendable {
        /// The caller holds a place and must ``leave()`` when done.
        case admitted
        /// Every place was taken and the line was full; nothing to give back.
        case refused
        /// The caller's task was cancelled while waiting; nothing to give back.
        case cancelled
    }

    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Admission, Never>
    }

    private struct State {
        var holders = 0
        var waiters: Deque<Waiter> = []
        var lastWaiterId: UInt64 = 0
    }

    let limit: Int
    let waitingLimit: Int
    private let state = Mutex(State())

    init(limit: Int, waitingLimit: Int) {
        self.limit = max(1, limit)
        self.waitingLimit = max(0, waitingLimit)
    }

    /// How many places are held now.
    var holders: Int { state.withLock { $0.holders } }

    /// How many callers wait now.
    var waiting: Int { state.withLock { $0.waiters.count } }

    /// Takes a place, waiting in line for one if the line is not full.
    func enter() async -> Admission {
        let id: UInt64
        switch state.withLock({ state -> Admission? in
            if state.holders < limit {
                state.holders += 1
                return .admitted
            }
            return state.waiters.count < waitingLimit ? nil : .refused
        }) {
        case let decided?: return decided
        case nil: id = state.withLock { state in
            state.lastWaiterId += 1
            return state.lastWaiterId
        }
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Admission, Never>) in
                let now: Admission? = state.withLock { state in
                    // A cancellation that came before this point found no waiter to remove: honour it here.
                    if Task.isCancelled { return .cancelled }
                    if state.holders < limit {
                        state.holders += 1
                        return .admitted
                    }
                    guard state.waiters.count < waitingLimit else { return .refused }
                    state.waiters.append(Waiter(id: id, continuation: continuation))
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume(returning: .cancelled)
        }
    }

    /// Gives a place back: to the first waiter if there is one.
    func leave() {
        let next = state.withLock { state -> Waiter? in
            if let first = state.waiters.popFirst() { return first }  // the place passes on; holders stay
            state.holders -= 1
            return nil
        }
        next?.continuation.resume(returning: .admitted)
    }
}
