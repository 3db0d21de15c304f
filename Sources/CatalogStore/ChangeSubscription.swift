import DequeModule
import NIOCore
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

        private struct State {
            var notices: Deque<Notice> = []
            var waiting: Set<Notice> = []
            var finished = false
        }

        private let state = Mutex(State())
        private let wakeup = Wakeup()

        init(topics: Topics) {
            self.topics = topics
        }

        /// Keeps `notice` until the consumer takes it, and wakes the consumer for a notice not already waiting.
        func deliver(_ notice: Notice) {
            let added = state.withLock { state -> Bool in
                guard !state.finished else { return false }
                switch notice {
                case .resumed:
                    // Everything before is read again anyway.
                    state.notices = [.resumed]
                    state.waiting = [.resumed]
                case _ where state.waiting.contains(notice):
                    // Its first delivery woke the consumer, which has not taken it yet.
                    return false
                case _ where state.notices.count >= Self.capacity:
                    state.notices = [.resumed]
                    state.waiting = [.resumed]
                default:
                    state.notices.append(notice)
                    state.waiting.insert(notice)
                }
                return true
            }
            if added { wakeup.wake() }
        }

        /// Ends the notices: the consumer's next ``next()`` answers `nil` once it has taken those waiting.
        func finish() {
            state.withLock { $0.finished = true }
            wakeup.finish()
        }

        /// The next notice, waiting for one; `nil` once the feed has stopped, or the waiting task is cancelled.
        func next() async -> Notice? {
            if case .notice(let notice) = await next(until: nil) { return notice }
            return nil
        }

        /// The next notice, waiting for one until `deadline` at most (a ``Wakeup``'s wait: the event stream waits
        /// once per notice per stream).
        public func next(until deadline: NIODeadline?) async -> Wake {
            while true {
                let taken = state.withLock { state -> Wake? in
                    if let notice = state.notices.popFirst() {
                        state.waiting.remove(notice)
                        return .notice(notice)
                    }
                    return state.finished ? .ended : nil
                }
                if let taken { return taken }
                switch await wakeup.wait(until: deadline) {
                case .woken: continue
                case .deadline: return .deadline
                case .ended: return .ended
                }
            }
        }

        public struct AsyncIterator: AsyncIteratorProtocol {
            let subscription: Subscription

            public mutating func next() async -> Notice? { await subscription.next() }
        }

        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(subscription: self) }
    }
}
