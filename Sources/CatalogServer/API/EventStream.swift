import CatalogAPI
import CatalogCore
import CatalogStore
import NIOCore
import OpenAPIRuntime
import ServiceLifecycle
import Synchronization

/// The history as Server-Sent Events (`GET /v1/events` with `Accept: text/event-stream`): each event as
/// `id: <sequence>`, `event: <kind>`, `data: <the event's JSON, as the pages give it>`, in sequence
/// order, from `after` on, then live as events become readable (``CatalogChanges``), with a comment line every
/// heartbeat so that proxies and clients know the stream is alive.
///
/// The answer is pulled: the next page is read only when the connection has taken what came before, so a slow
/// reader holds at most one page, never slows a writer (nothing of it waits in the database: each page is one
/// short statement) and never another reader. Streams that need the same page share it (``Pages``).
///
/// A stream ends when the server begins to stop (SIGTERM): the server drains the requests in flight before the
/// change feed stops, so a stream left open would hold the process until it is killed. Its client resumes from
/// its last event on another server, or on this one restarted, with `Last-Event-ID`.
enum EventStream {
    /// How many streams this process serves at once, at most; beyond, requests are answered 503.
    final class Slots: Sendable {
        let limit: Int
        private let taken = Atomic<Int>(0)

        init(limit: Int) {
            self.limit = limit
        }

        var inUse: Int { taken.load(ordering: .relaxed) }

        /// A slot, given back when released; `nil` when all are taken.
        func take() -> Slot? {
            let after = taken.add(1, ordering: .relaxed).newValue
            guard after <= limit else {
                taken.subtract(1, ordering: .relaxed)
                return nil
            }
            return Slot(slots: self)
        }

        fileprivate func giveBack() { taken.subtract(1, ordering: .relaxed) }
    }

    /// One stream's place, given back when the stream's body is released.
    final class Slot: Sendable {
        private let slots: Slots

        fileprivate init(slots: Slots) {
            self.slots = slots
        }

        deinit { slots.giveBack() }
    }

    /// Events read per page, and sent as one chunk.
    static let pageSize = 200

    /// The stream of the events `filter` selects after `sequence`.
    static func body(changes: CatalogChanges, pages: Pages, filter: HistoryFilter, after sequence: Int64,
                     heartbeat: Duration, slot: Slot) -> HTTPBody {
        HTTPBody(Chunks(changes: changes, pages: pages, filter: filter, after: sequence, heartbeat: heartbeat, slot: slot),
                 length: .unknown, iterationBehavior: .single)
    }

    /// One event as the stream writes it: its JSON as the pages give it.
    static func frame(_ event: HistoryEvent) throws -> String {
        let data = AnswerJSON.line(try Components.Schemas.HistoryEvent(event))
        return "id: \(event.sequence)\nevent: \(event.record.kind.rawValue)\ndata: \(data)\n\n"
    }

    private struct Chunks: AsyncSequence, Sendable {
        typealias Element = ArraySlice<UInt8>
        let changes: CatalogChanges
        let pages: Pages
        let filter: HistoryFilter
        let after: Int64
        let heartbeat: Duration
        let slot: Slot

        struct AsyncIterator: AsyncIteratorProtocol {
            let changes: CatalogChanges
            let filter: HistoryFilter
            let heartbeat: Duration
            let slot: Slot
            let pages: Pages
            var position: Int64
            var subscription: CatalogChanges.OpenSubscription?
            var started = false
            var lastSent = NIODeadline.now()

            mutating func next() async throws -> ArraySlice<UInt8>? {
                if !started {
                    started = true
                    // Subscribed before the first read, so that nothing readable later goes unheard. The first
                    // bytes go at once: the client knows the stream is open, and how long to wait to reconnect.
                    subscription = changes.openSubscription(to: .history)
                    return Array("retry: 2000\n: events after \(position)\n\n".utf8)[...]
                }
                guard let subscription else { return nil }
                while true {
                    try Task.checkCancellation()
                    let page = try await pages.page(of: changes, filter: filter, after: position)
                    position = page.next
                    if page.count > 0 { return sent(page.frames[...]) }
                    // A heartbeat once the stream has been quiet for `heartbeat`, however many notices came
                    // meanwhile with nothing this stream's filter selects.
                    let wake = await withGracefulShutdownHandler {
                        await subscription.notices.next(until: lastSent + TimeAmount(heartbeat))
                    } onGracefulShutdown: {
                        subscription.end()
                    }
                    switch wake {
                    case .notice: continue
                    case .deadline: return sent(Array(": heartbeat\n\n".utf8)[...])
                    case .ended:
                        subscription.end()
                        return nil
                    }
                }
            }

            private mutating func sent(_ chunk: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
                lastSent = .now()
                return chunk
            }
        }

        func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(changes: changes, filter: filter, heartbeat: heartbeat, slot: slot, pages: pages, position: after)
        }
    }
}
