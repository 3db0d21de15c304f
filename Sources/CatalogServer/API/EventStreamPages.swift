import CatalogStore
import DequeModule
import Synchronization

extension EventStream {
    /// The pages the event streams of this process send, as their frames, read and written once for every stream
    /// that needs them. After a change every stream that is caught up reads the page after the same position, up
    /// to the same readable position, and streams with the same filter need the same bytes: one database read and
    /// one encoding between them, instead of one each.
    ///
    /// A page is kept by what selects it (filter, after, through): events up to a readable position never change,
    /// so a page kept is always true. The last ``kept`` pages are kept; a page being read is awaited by every
    /// stream that asks for it meanwhile.
    final class Pages: Sendable {
        /// A page's events as the stream writes them, how many, and where the next page starts.
        struct Page: Sendable {
            let frames: [UInt8]
            let count: Int
            let next: Int64
        }

        private struct Key: Hashable {
            let filter: HistoryFilter
            let after: Int64
            let through: Int64
        }

        private struct State {
            var pages: [Key: Task<Page, any Error>] = [:]
            var order: Deque<Key> = []
        }

        /// Pages kept: enough for the filters of every stream that is caught up to share theirs. A page after a
        /// change or two is a few KB; a full one (``EventStream/pageSize`` events, read by a stream catching up)
        /// some hundreds of KB at most.
        static let kept = 32

        private let state = Mutex(State())
        private let reads = Atomic<Int>(0)

        /// How many pages were read from the database, for tests.
        var pagesRead: Int { reads.load(ordering: .relaxed) }

        /// The page of the events `filter` selects after `after`, among those readable now.
        func page(of changes: CatalogChanges, filter: HistoryFilter, after: Int64) async throws -> Page {
            guard let through = changes.readableThrough, through > after else {
                return Page(frames: [], count: 0, next: after)
            }
            let key = Key(filter: filter, after: after, through: through)
            let read = state.withLock { state in
                if let read = state.pages[key] { return read }
                let read = Task {
                    reads.add(1, ordering: .relaxed)
                    let page = try await changes.events(after: after, through: through, filter: filter,
                                                        limit: EventStream.pageSize)
                    var frames: [UInt8] = []
                    for event in page.events { frames.append(contentsOf: try EventStream.frame(event).utf8) }
                    return Page(frames: frames, count: page.events.count, next: page.next)
                }
                state.pages[key] = read
                state.order.append(key)
                if state.order.count > Self.kept { state.pages[state.order.removeFirst()] = nil }
                return read
            }
            do {
                return try await read.value
            } catch {
                // Not kept: the next stream to ask reads it again.
                state.withLock { state in
                    if state.pages[key] == read { state.pages[key] = nil }
                }
                throw error
            }
        }
    }
}
