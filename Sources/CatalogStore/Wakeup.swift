import NIOCore
import PostgresNIO
import Synchronization

/// A wait for a wake-up, bounded by a deadline: the one way this service's loops and waiting requests wait for
/// "something may have changed, or it is time to look anyway". One waiter at a time.
///
/// A wake-up while nobody waits is kept for the next wait, and any number of them count as one, so that nothing
/// woken between a look and the wait after it is missed. The deadline is an event loop's timer, cancelled as
/// soon as the wait ends otherwise: racing each wait against a `Task.sleep` instead leaves every cancelled
/// sleep's timer queued in the concurrency runtime until it is due, and waits made once per change pile them up
/// (docs/decisions.md, "One deadline per wait").
public final class Wakeup: Sendable {
    /// How a wait ended.
    public enum Outcome: Sendable, Equatable {
        /// Woken, now or before the wait began.
        case woken
        /// The deadline passed first.
        case deadline
        /// The wake-ups have ended (``finish()``), or the waiting task was cancelled.
        case ended
    }

    private struct Waiter {
        let continuation: CheckedContinuation<Outcome, Never>
        /// Tells this wait from a later one, so that a timer that fires late ends only its own.
        let wait: UInt64
    }

    private struct State {
        var pending = false
        var finished = false
        var waiter: Waiter?
        var waits: UInt64 = 0
    }

    private let state = Mutex(State())

    public init() {}

    /// Wakes the waiter, or the next wait when none waits now.
    public func wake() {
        let waiter = state.withLock { state -> Waiter? in
            guard let waiter = state.waiter else {
                state.pending = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.continuation.resume(returning: .woken)
    }

    /// Ends the wait now and every wait after it (a wake-up kept from before still ends the next wait first).
    public func finish() {
        let waiter = state.withLock { state -> Waiter? in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.continuation.resume(returning: .ended)
    }

    /// Waits for a wake-up until `deadline` (`nil`: no deadline).
    @discardableResult
    public func wait(until deadline: NIODeadline?) async -> Outcome {
        var timer: Scheduled<Void>?
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
                let (ready, wait) = state.withLock { state -> (Outcome?, UInt64) in
                    if state.pending {
                        state.pending = false
                        return (.woken, 0)
                    }
                    if state.finished || Task.isCancelled { return (.ended, 0) }
                    if let deadline, deadline <= .now() { return (.deadline, 0) }
                    precondition(state.waiter == nil, "a Wakeup has one waiter at a time")
                    state.waits &+= 1
                    state.waiter = Waiter(continuation: continuation, wait: state.waits)
                    return (nil, state.waits)
                }
                if let ready {
                    continuation.resume(returning: ready)
                } else if let deadline {
                    timer = Self.timerLoops.any().scheduleTask(deadline: deadline) { [self] in
                        let waiter = state.withLock { state -> Waiter? in
                            guard let waiter = state.waiter, waiter.wait == wait else { return nil }
                            state.waiter = nil
                            return waiter
                        }
                        waiter?.continuation.resume(returning: .deadline)
                    }
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.continuation.resume(returning: .ended)
        }
        timer?.cancel()
        return outcome
    }

    /// Waits for a wake-up for `duration` at most.
    @discardableResult
    public func wait(for duration: Duration) async -> Outcome {
        await wait(until: .now() + TimeAmount(duration))
    }

    /// The event loops that time the waits: the process's own, on which its connections run.
    private static var timerLoops: any EventLoopGroup { PostgresConnection.defaultEventLoopGroup }
}
