import DequeModule
import NIOCore
import PostgresNIO
import Synchronization

extension CatalogChanges {
    /// The notices one consumer of ``CatalogChanges`` has not taken yet, in the order they came, each at most once
    /// (a notice already waiting says all that a second would).
    ///
    /// It holds at most ``capacity`` notices: a consumer that falls that far behind is told ``Notice/resumed``
    /// instead of them, which makes it read again what it keeps, so a slow consumer costs a bounded amount of
    /// memory and never misses a change.
    public final class Subscription: AsyncSequence, Sendable {
        public typealias Element = Notice
        public typealias Failure = Never

        static let capacity = 1_024

        let topics: Topics

        /// How a wait for the next notice ended.
        public enum Wake: Sendable, Equatable {
            case notice(Notice)
            /// The wait's deadline passed first.
            case deadline
            /// The notices have ended (the feed stopped, or the subscription was ended), or the task was cancelled.
            case ended
        }

        private struct Consumer {
            let continuation: CheckedContinuation<Wake, Never>
            /// Tells this wait from a later one, so that a deadline that fires late wakes only its own.
            let wait: UInt64
        }

        private struct State {
            var notices: Deque<Notice> = []
            var waiting: Set<Notice> = []
            var consumer: Consumer?
            var waits: UInt64 = 0
            var finished = false
        }

        private let state = Mutex(State())

        init(topics: Topics) {
            self.topics = topics
        }

        /// Hands `notice` to the consumer, or keeps it until the consumer asks.
        func deliver(_ notice: Notice) {
            let consumer = state.withLock { state -> Consumer? in
                guard !state.finished else { return nil }
                if let consumer = state.consumer {
                    state.consumer = nil
                    return consumer
                }
                switch notice {
                case .resumed:
                    // Everything before is read again anyway.
                    state.notices = [.resumed]
                    state.waiting = [.resumed]
                case _ where state.waiting.contains(notice):
                    break
                case _ where state.notices.count >= Self.capacity:
                    state.notices = [.resumed]
                    state.waiting = [.resumed]
                default:
                    state.notices.append(notice)
                    state.waiting.insert(notice)
                }
                return nil
            }
            consumer?.continuation.resume(returning: .notice(notice))
        }

        /// Ends the notices: the consumer's next ``next()`` answers `nil` once it has taken those waiting.
        func finish() {
            let consumer = state.withLock { state in
                state.finished = true
                defer { state.consumer = nil }
                return state.consumer
            }
            consumer?.continuation.resume(returning: .ended)
        }

        /// The next notice, waiting for one; `nil` once the feed has stopped, or the waiting task is cancelled.
        func next() async -> Notice? {
            if case .notice(let notice) = await next(until: nil) { return notice }
            return nil
        }

        /// The next notice, waiting for one until `deadline` at most.
        ///
        /// The deadline is an event loop's timer, cancelled as soon as a notice comes: the event stream waits once
        /// per notice per stream, and racing each wait against a `Task.sleep` would leave a cancelled sleep's timer
        /// queued in the runtime until it was due (docs/decisions.md, "An attempt has one deadline").
        public func next(until deadline: NIODeadline?) async -> Wake {
            var timer: Scheduled<Void>?
            let wake = await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Wake, Never>) in
                    let (ready, wait) = state.withLock { state -> (Wake?, UInt64) in
                        if let notice = state.notices.popFirst() {
                            state.waiting.remove(notice)
                            return (.notice(notice), 0)
                        }
                        if state.finished || Task.isCancelled { return (.ended, 0) }
                        if let deadline, deadline <= .now() { return (.deadline, 0) }
                        state.waits &+= 1
                        state.consumer = Consumer(continuation: continuation, wait: state.waits)
                        return (nil, state.waits)
                    }
                    if let ready {
                        continuation.resume(returning: ready)
                    } else if let deadline {
                        timer = Self.timerLoops.any().scheduleTask(deadline: deadline) { [self] in
                            let consumer = state.withLock { state -> Consumer? in
                                guard let consumer = state.consumer, consumer.wait == wait else { return nil }
                                state.consumer = nil
                                return consumer
                            }
                            consumer?.continuation.resume(returning: .deadline)
                        }
                    }
                }
            } onCancel: {
                let consumer = state.withLock { state in
                    defer { state.consumer = nil }
                    return state.consumer
                }
                consumer?.continuation.resume(returning: .ended)
            }
            timer?.cancel()
            return wake
        }

        /// The event loops that time the waits: the process's own, on which its connections run.
        private static var timerLoops: any EventLoopGroup { PostgresConnection.defaultEventLoopGroup }

        public struct AsyncIterator: AsyncIteratorProtocol {
            let subscription: Subscription

            public mutating func next() async -> Notice? { await subscription.next() }
        }

        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(subscription: self) }
    }
}
