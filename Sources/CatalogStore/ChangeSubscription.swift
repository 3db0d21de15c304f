import DequeModule
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

        private struct State {
            var notices: Deque<Notice> = []
            var waiting: Set<Notice> = []
            var consumer: CheckedContinuation<Notice?, Never>?
            var finished = false
        }

        private let state = Mutex(State())

        init(topics: Topics) {
            self.topics = topics
        }

        /// Hands `notice` to the consumer, or keeps it until the consumer asks.
        func deliver(_ notice: Notice) {
            let consumer = state.withLock { state -> CheckedContinuation<Notice?, Never>? in
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
            consumer?.resume(returning: notice)
        }

        /// Ends the notices: the consumer's next ``next()`` answers `nil` once it has taken those waiting.
        func finish() {
            let consumer = state.withLock { state in
                state.finished = true
                defer { state.consumer = nil }
                return state.consumer
            }
            consumer?.resume(returning: nil)
        }

        /// The next notice, waiting for one; `nil` once the feed has stopped, or the waiting task is cancelled.
        func next() async -> Notice? {
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Notice?, Never>) in
                    let ready = state.withLock { state -> Notice?? in
                        if let notice = state.notices.popFirst() {
                            state.waiting.remove(notice)
                            return .some(notice)
                        }
                        if state.finished || Task.isCancelled { return .some(nil) }
                        state.consumer = continuation
                        return nil
                    }
                    if let ready { continuation.resume(returning: ready) }
                }
            } onCancel: {
                let consumer = state.withLock { state in
                    defer { state.consumer = nil }
                    return state.consumer
                }
                consumer?.resume(returning: nil)
            }
        }

        public struct AsyncIterator: AsyncIteratorProtocol {
            let subscription: Subscription

            public mutating func next() async -> Notice? { await subscription.next() }
        }

        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(subscription: self) }
    }
}
