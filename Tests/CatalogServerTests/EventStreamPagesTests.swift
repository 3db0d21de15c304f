import CatalogCore
@testable import CatalogServer
import CatalogStore
import CatalogTestSupport
import Testing

/// The pages the event streams send, shared between the streams that need the same one.
@Suite("Event stream pages")
struct EventStreamPagesTests {
    @Test("streams that need the same page share one read; another filter, key scope or place reads its own")
    func shared() async throws {
        try await ChangeFeedFixture.withFeed("event_stream_pages") { changes, database, _ in
            let start = try await ChangeFeedFixture.position(changes)
            let actor = Actor(keyID: nil, name: "pages tests", role: .admin)
            for (app, product) in [("com.pages.a", "one"), ("com.pages.b", "two"), ("com.pages.a", "three")] {
                try await database.history.append(HistoryRecord(kind: .edited, bundleID: app, productID: product, actor: actor))
            }
            let appended = try await ChangeFeedFixture.page(changes, after: start, count: 3).events
            try #require(appended.count == 3)
            let frames = { (events: ArraySlice<HistoryEvent>) in try events.map(EventStream.frame).joined() }

            let pages = EventStream.Pages()
            let every = try await withThrowingTaskGroup(of: EventStream.Pages.Page.self) { group in
                for _ in 0..<16 { group.addTask { try await pages.page(of: changes, filter: HistoryFilter(), after: start) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(pages.pagesRead == 1)
            #expect(every.count == 16)
            for page in every {
                #expect(page.count == 3 && page.next >= appended[2].sequence)
                #expect(String(decoding: page.frames, as: UTF8.self) == (try frames(appended[...])))
            }

            let appA = try await pages.page(of: changes, filter: HistoryFilter(app: "com.pages.a"), after: start)
            #expect(String(decoding: appA.frames, as: UTF8.self) == (try frames([appended[0], appended[2]][...])))
            // A key that sees one app only has pages of its own, never those of a key that sees more.
            let scoped = try await pages.page(of: changes, filter: HistoryFilter(visibleApps: ["com.pages.a"]), after: start)
            #expect(String(decoding: scoped.frames, as: UTF8.self) == (try frames([appended[0], appended[2]][...])))
            let later = try await pages.page(of: changes, filter: HistoryFilter(), after: appended[0].sequence)
            #expect(String(decoding: later.frames, as: UTF8.self) == (try frames(appended[1...])))
            #expect(pages.pagesRead == 4)

            // Kept: asked again, not read again.
            _ = try await pages.page(of: changes, filter: HistoryFilter(), after: start)
            #expect(pages.pagesRead == 4)

            // Nothing readable after the last: no read at all.
            let none = try await pages.page(of: changes, filter: HistoryFilter(), after: later.next)
            #expect(none.count == 0 && none.frames.isEmpty && none.next == later.next && pages.pagesRead == 4)
        }
    }
}
