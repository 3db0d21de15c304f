import CatalogAPI
import CatalogCore
import CatalogServer
import CatalogTestSupport
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

/// The history as a feed: `GET /v1/events` pages, and the live stream (Server-Sent Events).
@Suite("Events over HTTP")
struct EventsAPITests {
    private func page(_ api: API, _ query: String, key: String) async throws -> Components.Schemas.EventPage {
        try expect(try await api.send(.get, "/v1/events?\(query)", key: key), .ok, as: Components.Schemas.EventPage.self)
    }

    /// Every event after `after` the query selects, page by page following `next`, once there are at least
    /// `count`: an event is handed out only once every older transaction of the cluster has ended, which other
    /// suites' writes can delay by moments.
    private func all(_ api: API, _ query: String, after: Int64 = 0, atLeast count: Int = 1,
                     key: String) async throws -> [Components.Schemas.HistoryEvent] {
        var events: [Components.Schemas.HistoryEvent] = []
        var position = after
        for _ in 0..<100 {
            let page = try await page(api, "after=\(position)&limit=3" + (query.isEmpty ? "" : "&\(query)"), key: key)
            events += page.items
            #expect(Int64(page.next) >= position)
            position = Int64(page.next)
            if page.items.isEmpty {
                if events.count >= count { return events }
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        return events
    }

    @Test("pages in sequence order after a sequence, filtered by app and kind, within the key's scope")
    func pages() async throws {
        let fixture = try await APIFixture.forSuite("events_api")
        let keys = try await fixture.keys()
        let a = "com.events.pages.a"
        let b = "com.events.pages.b"
        let limited = try await fixture.key(.auditor, apps: [a])
        try await fixture.run { api in
            try await api.createApp(a, key: keys.admin)
            try await api.createApp(b, key: keys.admin)
            for product in ["one", "two", "three"] {
                try await api.createProduct(a, product, type: .consumable, key: keys.developer)
                try await api.createProduct(b, product, type: .consumable, key: keys.developer)
            }
            try await api.move(.approve, a, "one", key: keys.developer)

            let mine = try await all(api, "app=\(a)", atLeast: 5, key: keys.auditor)
            try #require(mine.map(\.kind) == [.appCreated, .created, .created, .created, .action])
            #expect(mine.map(\.sequence) == mine.map(\.sequence).sorted() && Set(mine.map(\.sequence)).count == 5)
            let created = try await all(api, "app=\(a)&kind=created", atLeast: 3, key: keys.auditor)
            #expect(created.map(\.productId) == ["one", "two", "three"])
            // After a sequence: only what follows it.
            let later = try await all(api, "app=\(a)", after: Int64(mine[2].sequence), atLeast: 2, key: keys.auditor)
            #expect(later.map(\.sequence) == Array(mine.map(\.sequence)[3...]))

            // A key limited to an app sees its events only: not the other app's, nor those outside any app.
            let scoped = try await all(api, "kind=created", atLeast: 3, key: limited)
            #expect(!scoped.isEmpty && scoped.allSatisfy { $0.app == a })
            let everything = try await all(api, "", atLeast: 5, key: limited)
            #expect(everything.allSatisfy { $0.app == a })
            _ = try problem(try await api.send(.get, "/v1/events?app=\(b)", key: limited), .notFound, "not-found")
            // An unlimited key sees the keys' events too.
            #expect(try await all(api, "kind=key_created", atLeast: 5, key: keys.auditor).count >= 5)
        }
    }

    @Test("a bad after, limit or Last-Event-ID is a 422 naming it; a client key may not read events")
    func refusals() async throws {
        let fixture = try await APIFixture.forSuite("events_api")
        let keys = try await fixture.keys()
        try await fixture.run { api in
            for (query, field) in [("after=-1", "after"), ("limit=0", "limit"), ("limit=201", "limit"), ("app=not%20an%20app", "app")] {
                let refused = try problem(try await api.send(.get, "/v1/events?\(query)", key: keys.auditor),
                                          .unprocessableContent, "validation-failed")
                #expect(refused.errors?.contains { $0.field == field } == true, "\(query): \(refused)")
            }
            var headers = HTTPFields()
            headers[HTTPField.Name("Last-Event-ID")!] = "seven"
            let badID = try problem(try await api.send(.get, "/v1/events", key: keys.auditor, headers: headers),
                                    .unprocessableContent, "validation-failed")
            #expect(badID.errors?.first?.field == "Last-Event-ID")
        }
    }

    @Test("the stream gives past events, then new ones live, heartbeats while quiet, and resumes after Last-Event-ID")
    func stream() async throws {
        let fixture = try await APIFixture.forSuite("events_api")
        let keys = try await fixture.keys()
        var limits = TestArguments.testLimits
        limits.eventStreamHeartbeat = .milliseconds(300)
        let app = "com.events.stream"
        let other = "com.events.stream.other"
        try await fixture.run(limits: limits, mode: .live) { api in
            let port = try #require(api.client.port)
            try await api.createApp(app, key: keys.admin)
            try await api.createApp(other, key: keys.admin)
            try await api.createProduct(app, "first", type: .consumable, key: keys.developer)

            var reader = try await EventStreamReader.open(port: port, "/v1/events?app=\(app)", key: keys.auditor)
            #expect(reader.status == 200)
            #expect(reader.contentType?.hasPrefix("text/event-stream") == true)
            let past = try await reader.events(2)
            #expect(past.map(\.kind) == ["app_created", "created"])
            let firstData = try #require(past[1].data)
            let decoded = try API.decoder.decode(Components.Schemas.HistoryEvent.self, from: Data(firstData.utf8))
            #expect(decoded.productId == "first" && Int64(decoded.sequence) == past[1].id)

            // Live: a change of another app is not sent; this app's is, and quiet moments carry heartbeats.
            try await api.createProduct(other, "elsewhere", type: .consumable, key: keys.developer)
            try await api.createProduct(app, "second", type: .consumable, key: keys.developer)
            let live = try await reader.events(1)
            #expect(live.first?.kind == "created")
            #expect(live.first?.data?.contains("\"second\"") == true)
            var heartbeat: EventStreamReader.Frame?
            while heartbeat == nil {
                let frame = try #require(try await reader.next())
                #expect(frame.id == nil, "no event was expected: \(frame)")
                if frame.comment == "heartbeat" { heartbeat = frame }
            }

            // Resumed after the first event: the rest, in order, and nothing before.
            var resumed = try await EventStreamReader.open(
                port: port, "/v1/events?app=\(app)", key: keys.auditor,
                headers: [("Last-Event-ID", String(try #require(past.first?.id)))])
            let again = try await resumed.events(2)
            #expect(again.map(\.id) == [past[1].id, live.first?.id])
        }
    }

    @Test("a stream sends its heartbeat after a quiet heartbeat, even while other apps' changes keep coming")
    func heartbeatWhileOthersChange() async throws {
        let fixture = try await APIFixture.forSuite("events_api")
        let keys = try await fixture.keys()
        var limits = TestArguments.testLimits
        limits.eventStreamHeartbeat = .milliseconds(300)
        let app = "com.events.quiet"
        let other = "com.events.busy"
        try await fixture.run(limits: limits, mode: .live) { api in
            let port = try #require(api.client.port)
            try await api.createApp(app, key: keys.admin)
            try await api.createApp(other, key: keys.admin)
            var reader = try await EventStreamReader.open(port: port, "/v1/events?app=\(app)", key: keys.auditor)
            #expect(try await reader.events(1).first?.kind == "app_created")

            // Another app changes every 100 ms for 3 s: each change wakes the stream, which has nothing to send.
            let clock = ContinuousClock()
            let busy = Task {
                for index in 0..<30 where !Task.isCancelled {
                    do {
                        try await api.createProduct(other, "noise\(index)", type: .consumable, key: keys.developer)
                    } catch where Task.isCancelled {
                        break
                    }
                    try? await Task.sleep(for: .milliseconds(100))
                }
                return clock.now
            }
            while true {
                let frame = try #require(try await reader.next(within: .seconds(10)))
                #expect(frame.id == nil, "no event of \(app) was expected: \(frame)")
                if frame.comment == "heartbeat" { break }
            }
            let heard = clock.now
            busy.cancel()
            #expect(heard < (try await busy.value), "the heartbeat came only once the other app's changes stopped")
        }
    }

    @Test("a stream that is not read loses nothing: every event arrives in order once it is read")
    func unreadStream() async throws {
        let fixture = try await APIFixture.forSuite("events_api")
        let keys = try await fixture.keys()
        let app = "com.events.unread"
        try await fixture.run(mode: .live) { api in
            let port = try #require(api.client.port)
            try await api.createApp(app, key: keys.admin)
            var reader = try await EventStreamReader.open(port: port, "/v1/events?app=\(app)&kind=created", key: keys.auditor)
            // Written while the stream is open and nobody reads it.
            for index in 0..<120 {
                try await api.createProduct(app, "p\(index)", type: .consumable, key: keys.developer)
            }
            let events = try await reader.events(120, within: .seconds(60))
            let products = try events.map { frame in
                try API.decoder.decode(Components.Schemas.HistoryEvent.self, from: Data(try #require(frame.data).utf8)).productId
            }
            #expect(products == (0..<120).map { "p\($0)" })
            #expect(events.map { $0.id ?? 0 } == events.map { $0.id ?? 0 }.sorted())
        }
    }

    @Test("streams beyond the process's limit are answered 503; a closed stream's place is given back")
    func streamLimit() async throws {
        let fixture = try await APIFixture.forSuite("events_api")
        let keys = try await fixture.keys()
        var limits = TestArguments.testLimits
        limits.eventStreams = 1
        limits.eventStreamHeartbeat = .milliseconds(200)
        try await fixture.run(limits: limits, mode: .live) { api in
            let port = try #require(api.client.port)
            do {
                var first = try await EventStreamReader.open(port: port, "/v1/events", key: keys.auditor)
                #expect(first.status == 200)
                _ = try await first.next()
                let second = try await EventStreamReader.open(port: port, "/v1/events", key: keys.auditor)
                #expect(second.status == 503)
            }
            // The first stream's connection is gone: its place comes back once the server notices.
            var status = 0
            for _ in 0..<50 where status != 200 {
                try await Task.sleep(for: .milliseconds(200))
                status = try await EventStreamReader.open(port: port, "/v1/events", key: keys.auditor).status
            }
            #expect(status == 200)
        }
    }
}
