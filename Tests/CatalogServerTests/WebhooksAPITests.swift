import CatalogAPI
import CatalogCore
import CatalogServer
import CatalogStore
import CatalogTestSupport
import Crypto
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import PurchaseCore
import Synchronization
import Testing
import WebhookClient

/// Names resolved as a test says, and changed while it runs (DNS rebinding).
final class StubResolver: HostResolver {
    private let answers: Mutex<[String: [IPAddress]]>

    init(_ answers: [String: [String]] = [:]) {
        self.answers = Mutex(answers.mapValues { $0.compactMap(IPAddress.init) })
    }

    func set(_ host: String, _ addresses: [String]) {
        answers.withLock { $0[host] = addresses.compactMap(IPAddress.init) }
    }

    func addresses(of host: String) async throws -> [IPAddress] {
        guard let found = answers.withLock({ $0[host] }), !found.isEmpty else {
            throw HostResolutionFailed(description: "\(host) does not resolve")
        }
        return found
    }
}

extension WebhookSettings {
    /// Deliveries as the tests need them: plain http to the receiver on loopback, retries within seconds, names
    /// resolved by `resolver` and never cached.
    static func testing(resolver: StubResolver = StubResolver(), loopback: Bool = true,
                        retryFor: Duration = .seconds(3 * 86_400)) -> WebhookSettings {
        var settings = WebhookSettings()
        settings.policy = WebhookAddressPolicy(allowsLoopbackHTTP: loopback)
        settings.resolver = resolver
        settings.resolutionTTL = .zero
        settings.retry = RetrySchedule(firstDelay: .milliseconds(300), maximumDelay: .seconds(3), retryFor: retryFor,
                                       jitter: 0.2)
        settings.claimInterval = .milliseconds(200)
        return settings
    }
}

/// Webhook endpoints over HTTP, and their deliveries to a real receiver. Each test has a database of its own:
/// every server delivers every endpoint of its database, so another test's server (with its own resolver and
/// retry schedule) would take this test's endpoints.
@Suite("Webhooks over HTTP")
struct WebhooksAPITests {
    private func create(_ api: API, _ json: [String: any Sendable], key: String) async throws -> Components.Schemas.CreatedWebhook {
        try expect(try await api.send(.post, "/v1/webhooks", key: key, json: json), .created,
                   as: Components.Schemas.CreatedWebhook.self)
    }

    private func endpoint(_ api: API, _ id: String, key: String) async throws -> Components.Schemas.Webhook {
        try expect(try await api.send(.get, "/v1/webhooks/\(id)", key: key), .ok, as: Components.Schemas.Webhook.self)
    }

    private func attempts(_ api: API, _ id: String, key: String) async throws -> [Components.Schemas.WebhookAttempt] {
        try expect(try await api.send(.get, "/v1/webhooks/\(id)/deliveries?limit=200", key: key), .ok,
                   as: Components.Schemas.WebhookAttemptPage.self).items
    }

    /// The sequences of `app`'s events after `after`, oldest first.
    private func sequences(_ api: API, app: String, after: Int64, key: String) async throws -> [Int64] {
        var result: [Int64] = []
        var position = after
        while true {
            let page = try expect(try await api.send(.get, "/v1/events?app=\(app)&after=\(position)&limit=200", key: key),
                                  .ok, as: Components.Schemas.EventPage.self)
            result += page.items.map { Int64($0.sequence) }
            if page.items.isEmpty { return result }
            position = Int64(page.next)
        }
    }

    /// Appends `count` events of `app` straight into the history, at about `perSecond`.
    private func write(_ count: Int, app: String, perSecond: Int, database url: DatabaseURL) async throws {
        try await TestDatabase.withDatabase(url) { store in
            let start = ContinuousClock.now
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<count {
                    let due = start + .milliseconds(index * 1_000 / perSecond)
                    if index >= 8 { try await group.next() }
                    group.addTask {
                        try await Task.sleep(until: due)
                        try await store.history.append(HistoryRecord(
                            kind: .appEdited, bundleID: app, actor: Actor(keyID: nil, name: "load", role: .admin),
                            reason: "event \(index)"))
                    }
                }
                try await group.waitForAll()
            }
        }
    }

    /// Checks every message's signature as a receiver would, with the secret shown at creation.
    private func verify(_ messages: [WebhookReceiver.Message], secret: String) throws {
        let key = SymmetricKey(data: try #require(Data(base64Encoded: String(secret.dropFirst("whsec_".count)))))
        for message in messages {
            let signed = Data("\(message.id).\(message.timestamp).".utf8) + Data(message.body)
            let expected = "v1," + Data(HMAC<SHA256>.authenticationCode(for: signed, using: key)).base64EncodedString()
            #expect(message.signature.split(separator: " ").contains { $0 == expected }, "\(message.id)")
        }
    }

    @Test("admins create, list, read and delete endpoints; the secret is shown once and nowhere else")
    func manage() async throws {
        let fixture = try await APIFixture.forSuite("webhooks_manage")
        let keys = try await fixture.keys()
        let app = "com.hooks.manage"
        let limitedAdmin = try await fixture.key(.admin, apps: [app])
        let resolver = StubResolver(["hooks.example.com": ["93.184.216.34"]])
        try await fixture.run(webhooks: .testing(resolver: resolver)) { api in
            try await api.createApp(app, key: keys.admin)
            var texts: [String] = []
            let created = try await create(api, ["url": "https://hooks.example.com/in?token=receiver-token",
                                                 "apps": [app], "kinds": ["action", "created"]], key: keys.admin)
            #expect(created.secret.hasPrefix("whsec_"))
            #expect(Data(base64Encoded: String(created.secret.dropFirst(6)))?.count == 32)
            #expect(created.apps == [app] && created.kinds == [.action, .created])
            let secretBody = String(created.secret.dropFirst(6))

            let read = try await api.send(.get, "/v1/webhooks/\(created.id)", key: keys.admin)
            let listed = try await api.send(.get, "/v1/webhooks", key: keys.admin)
            texts += [String(buffer: read.body), String(buffer: listed.body)]
            let webhook = try expect(read, .ok, as: Components.Schemas.Webhook.self)
            #expect(webhook.state == .active && webhook.url == "https://hooks.example.com/in?token=receiver-token")
            #expect(try expect(listed, .ok, as: Components.Schemas.WebhookList.self).items.map(\.id).contains(created.id))

            // Admins only; a key limited to some apps manages endpoints limited to those apps.
            _ = try problem(try await api.send(.get, "/v1/webhooks", key: keys.developer), .forbidden, "forbidden")
            _ = try problem(try await api.send(.post, "/v1/webhooks", key: limitedAdmin,
                                               json: ["url": "https://hooks.example.com/x"]), .forbidden, "forbidden")
            let mine = try await create(api, ["url": "https://hooks.example.com/mine", "apps": [app]], key: limitedAdmin)
            let everyApp = try await create(api, ["url": "https://hooks.example.com/all"], key: keys.admin)
            let seen = try expect(try await api.send(.get, "/v1/webhooks", key: limitedAdmin), .ok,
                                  as: Components.Schemas.WebhookList.self).items.map(\.id)
            #expect(seen.contains(mine.id) && !seen.contains(everyApp.id))
            _ = try problem(try await api.send(.delete, "/v1/webhooks/\(everyApp.id)", key: limitedAdmin), .notFound, "not-found")

            // Bad input: a clear 422 naming the field and the rule, nothing created.
            for (json, field) in [(["url": "ftp://hooks.example.com/x"], "url"), (["url": "https://u:p@hooks.example.com/"], "url"),
                                  (["url": "https://hooks.example.com/", "apps": [String]()], "apps"),
                                  (["url": "https://hooks.example.com/", "apps": ["com.hooks.none"]], "apps[0]"),
                                  (["url": "https://hooks.example.com/", "kinds": ["exploded"]], "kinds[0]")]
                as [([String: any Sendable], String)] {
                let refused = try await api.send(.post, "/v1/webhooks", key: keys.admin, json: json)
                #expect(refused.status == .unprocessableContent, "\(json): \(String(buffer: refused.body))")
                #expect(String(buffer: refused.body).contains("\"\(field)\""), "\(json): \(String(buffer: refused.body))")
            }

            #expect(try await api.send(.delete, "/v1/webhooks/\(created.id)", key: keys.admin).status == .noContent)
            _ = try problem(try await api.send(.get, "/v1/webhooks/\(created.id)", key: keys.admin), .notFound, "not-found")
            _ = try problem(try await api.send(.delete, "/v1/webhooks/\(created.id)", key: keys.admin), .notFound, "not-found")
            _ = try problem(try await api.send(.get, "/v1/webhooks/not-a-uuid", key: keys.admin), .notFound, "not-found")

            // History records endpoints by origin: not the secret, not the path and query (a receiver's token).
            var history: [String] = []
            var headers = HTTPFields()
            for accept in ["application/json", "text/csv", "application/x-ndjson"] {
                headers[.accept] = accept
                history.append(String(buffer: try await api.send(.get, "/v1/history?kind=webhook_created", key: keys.admin,
                                                                 headers: headers).body))
            }
            let events = try expect(try await api.send(.get, "/v1/history?kind=webhook_created", key: keys.admin), .ok,
                                    as: Components.Schemas.HistoryPage.self).items
            #expect(events.count == 3)
            #expect(history.allSatisfy { $0.contains("https://hooks.example.com") })
            #expect(!history.contains { $0.contains("receiver-token") }, "the URL's path or query is in history")
            for text in texts + history {
                #expect(!text.contains(secretBody), "the secret was answered again")
            }
        }
    }

    @Test("endpoints that would reach private, loopback, link-local or metadata addresses are refused at creation")
    func refusedAtCreation() async throws {
        let fixture = try await APIFixture.forSuite("webhooks_creation")
        let keys = try await fixture.keys()
        let resolver = StubResolver(["internal.test": ["10.1.2.3"], "public.test": ["93.184.216.34"],
                                     "mixed.test": ["93.184.216.34", "127.0.0.1"], "metadata.test": ["169.254.169.254"],
                                     "six.test": ["fd00::1"]])
        try await fixture.run(webhooks: .testing(resolver: resolver, loopback: false)) { api in
            for url in ["https://10.0.0.1/hook", "https://169.254.169.254/latest/meta-data", "https://[::1]/hook",
                        "http://127.0.0.1:8080/hook", "https://127.0.0.1/hook", "https://0x7f.1/hook", "https://2130706433/",
                        "https://[::ffff:10.0.0.1]/", "https://[fe80::1]/", "https://100.64.0.1/", "https://192.168.1.1/",
                        "https://internal.test/hook", "https://mixed.test/hook", "https://metadata.test/",
                        "https://six.test/", "http://public.test/hook", "https://nowhere.test/hook"] {
                let refused = try await api.send(.post, "/v1/webhooks", key: keys.admin, json: ["url": url])
                #expect(refused.status == .unprocessableContent, "\(url) was not refused: \(String(buffer: refused.body))")
                #expect(String(buffer: refused.body).contains("\"url\""), "\(url): \(String(buffer: refused.body))")
            }
            _ = try await create(api, ["url": "https://public.test/hook"], key: keys.admin)
        }
    }

    @Test("a name that resolves to a refused address at delivery (DNS rebinding) is not connected to")
    func refusedAtDelivery() async throws {
        let fixture = try await APIFixture.forSuite("webhooks_rebinding")
        let keys = try await fixture.keys()
        let receiver = try await WebhookReceiver.start()
        let app = "com.hooks.rebinding"
        let resolver = StubResolver(["rebind.test": ["93.184.216.34"]])
        try await fixture.run(webhooks: .testing(resolver: resolver, loopback: false)) { api in
            try await api.createApp(app, key: keys.admin)
            let created = try await create(api, ["url": "https://rebind.test:\(receiver.port)/hooks", "apps": [app]],
                                           key: keys.admin)
            resolver.set("rebind.test", ["127.0.0.1"])
            try await api.createProduct(app, "coins", type: .consumable, key: keys.developer)
            var found: [Components.Schemas.WebhookAttempt] = []
            for _ in 0..<100 where found.isEmpty {
                try await Task.sleep(for: .milliseconds(100))
                found = try await attempts(api, created.id, key: keys.admin)
            }
            #expect(found.first?.outcome == .refused, "\(found)")
            #expect(found.first?.error?.contains("loopback") == true, "\(found)")
            #expect(found.first?.status == nil)
            #expect(try await endpoint(api, created.id, key: keys.admin).state == .failing)
        }
        #expect(receiver.messages.isEmpty)
        await receiver.stop()
    }

    @Test("a receiver gets every event exactly once and in order at 1,000 events a second, each signed")
    func orderedUnderLoad() async throws {
        let fixture = try await APIFixture.forSuite("webhooks_load")
        let keys = try await fixture.keys()
        let receiver = try await WebhookReceiver.start()
        let app = "com.hooks.load"
        try await fixture.run(webhooks: .testing()) { api in
            try await api.createApp(app, key: keys.admin)
            let created = try await create(api, ["url": receiver.url(), "apps": [app]], key: keys.admin)
            try await write(3_000, app: app, perSecond: 1_000, database: fixture.url)
            let expected = try await sequences(api, app: app, after: Int64(created.deliveredThrough), key: keys.admin)
            #expect(expected.count == 3_000)
            let received = try await receiver.waitFor(3_000, timeout: .seconds(120))
            #expect(received.compactMap(\.sequence) == expected, "not every event, or not in order")
            #expect(receiver.messages.count == 3_000, "\(receiver.messages.count - 3_000) duplicates without a failure")
            try verify(received, secret: created.secret)
            // Each body is the event: its type, and the event as the NDJSON export writes it.
            let first = try #require(try JSONSerialization.jsonObject(with: Data(received[0].body)) as? [String: Any])
            #expect(first["type"] as? String == "app_edited")
            #expect((first["data"] as? [String: Any])?["sequence"] as? Int64 == expected.first)

            // An independent implementation agrees: the Standard Webhooks library from PyPI.
            let folder = try receiver.write(Array(received.prefix(50)))
            defer { try? FileManager.default.removeItem(at: folder) }
            let (status, output) = try await Self.run(TestDatabase.repositoryRoot.appendingPathComponent("scripts/verify-webhook").path,
                                                      [created.secret, folder.path])
            #expect(status == 0 && output.contains("verified 50"), "\(output)")
            // A wrong secret does not verify: the check can fail.
            let (wrong, _) = try await Self.run(TestDatabase.repositoryRoot.appendingPathComponent("scripts/verify-webhook").path,
                                                [WebhookSecret.generate().text, folder.path])
            #expect(wrong == 1)

            let page = try await attempts(api, created.id, key: keys.admin)
            #expect(page.count == 200 && page.allSatisfy { $0.outcome == .delivered && $0.status == 204 })
        }
        await receiver.stop()
    }

    @Test("an event failing in the middle of a backlog: the page read ahead is dropped, every event arrives once, in order")
    func failureWhileReadingAhead() async throws {
        let fixture = try await APIFixture.forSuite("webhooks_ahead")
        let keys = try await fixture.keys()
        let receiver = try await WebhookReceiver.start()
        let app = "com.hooks.ahead"
        try await fixture.run(webhooks: .testing()) { api in
            try await api.createApp(app, key: keys.admin)
            let created = try await create(api, ["url": receiver.url(), "apps": [app]], key: keys.admin)
            // A backlog of full pages: nothing is delivered until all 250 events are written.
            receiver.fail(with: 503)
            try await write(250, app: app, perSecond: 10_000, database: fixture.url)
            receiver.fail(once: 503, at: 150)
            receiver.fail(with: nil)
            let expected = try await sequences(api, app: app, after: Int64(created.deliveredThrough), key: keys.admin)
            #expect(expected.count == 250)
            let received = try await receiver.waitFor(250, timeout: .seconds(60))
            #expect(received.compactMap(\.sequence) == expected, "not every event, or not in order")
            #expect(receiver.messages.count == 250, "\(receiver.messages.count - 250) sent twice")
            let tried = try await attempts(api, created.id, key: keys.admin)
            #expect(tried.contains { $0.outcome == .failed && $0.sequence == expected[150] },
                    "the 151st event did not fail once: the test proved nothing")
        }
        await receiver.stop()
    }

    @Test("while the API answers more requests than the limit at once, deliveries wait for them")
    func deliveriesGiveWay() async throws {
        let fixture = try await APIFixture.forSuite("webhooks_busy")
        let keys = try await fixture.keys()
        let receiver = try await WebhookReceiver.start()
        let app = "com.hooks.busy"
        var limits = TestArguments.testLimits
        limits.busyRequests = 2
        limits.busyWait = .seconds(120)
        try await fixture.run(limits: limits, mode: .live, webhooks: .testing()) { api in
            let port = try #require(api.client.port)
            try await api.createApp(app, key: keys.admin)
            _ = try await create(api, ["url": receiver.url(), "apps": [app]], key: keys.admin)
            try await api.createProduct(app, "before", type: .consumable, key: keys.developer)
            #expect(try await receiver.waitFor(1).count == 1, "not busy: delivered at once")

            // Three uploads in progress: the server is answering them until their bodies arrive.
            let hold = ContinuousClock.now + HeldRequests.hold
            let held = HeldRequests.start(3, port: port, path: "/v1/apps", key: keys.admin) { index in
                #"{"bundleId":"com.hooks.busy.\#(["a", "b", "c"][index])","name":"Held"}"#
            }
            #expect(try await HeldRequests.waitUntilInFlight(4, api.client) >= 4, "the held uploads are not counted in flight")
            try await api.createProduct(app, "during", type: .consumable, key: keys.developer)
            try await Task.sleep(for: .seconds(2))
            #expect(receiver.distinct.count == 1, "delivered while the API was busy")
            #expect(ContinuousClock.now < hold, "the uploads ended before the check: it proved nothing")
            for task in held {
                let answer = try await task.value
                #expect(answer.hasPrefix("HTTP/1.1 201"), "\(answer)")
            }
            let ended = ContinuousClock.now
            let all = try await receiver.waitFor(2, timeout: .seconds(100))
            #expect(all.count == 2)
            // Well within the longest wait (120 s): deliveries resumed because the API was quiet, not at the limit.
            #expect(ContinuousClock.now - ended < .seconds(60), "not delivered soon after the API was quiet again")
        }
        await receiver.stop()
    }

    @Test("a receiver down for a minute gets everything once back, in order; attempts show the failures")
    func receiverDownAMinute() async throws {
        let fixture = try await APIFixture.forSuite("webhooks_down")
        let keys = try await fixture.keys()
        let receiver = try await WebhookReceiver.start()
        let app = "com.hooks.down"
        try await fixture.run(webhooks: .testing()) { api in
            try await api.createApp(app, key: keys.admin)
            let created = try await create(api, ["url": receiver.url(), "apps": [app]], key: keys.admin)
            try await write(20, app: app, perSecond: 100, database: fixture.url)
            let received = try await receiver.waitFor(20)
            receiver.fail(with: 503)
            let down = ContinuousClock.now
            try await write(30, app: app, perSecond: 10, database: fixture.url)
            var failing = try await endpoint(api, created.id, key: keys.admin)
            for _ in 0..<100 where failing.state != .failing {
                try await Task.sleep(for: .milliseconds(100))
                failing = try await endpoint(api, created.id, key: keys.admin)
            }
            #expect(failing.state == .failing && failing.failedAttempts >= 1 && failing.nextAttemptAt != nil)
            try await Task.sleep(until: down + .seconds(60))
            receiver.fail(with: nil)
            let all = try await receiver.waitFor(50, timeout: .seconds(60))
            let expected = try await sequences(api, app: app, after: Int64(created.deliveredThrough), key: keys.admin)
            #expect(all.compactMap(\.sequence) == expected)
            #expect(Array(all.prefix(20)).map(\.id) == received.prefix(20).map(\.id))
            let tried = try await attempts(api, created.id, key: keys.admin)
            #expect(tried.contains { $0.outcome == .failed && $0.status == 503 })
            #expect(tried.first?.outcome == .delivered)
            let failedSequence = try #require(tried.last { $0.outcome == .failed }?.sequence)
            #expect(tried.filter { $0.sequence == failedSequence && $0.outcome == .failed }.count > 3)
            #expect(try await endpoint(api, created.id, key: keys.admin).state == .active)
        }
        await receiver.stop()
    }

    @Test("an event failing for the whole retry window disables the endpoint with its reason; redelivery resumes it")
    func disabledThenRedelivered() async throws {
        let fixture = try await APIFixture.forSuite("webhooks_disabled")
        let keys = try await fixture.keys()
        let receiver = try await WebhookReceiver.start()
        let app = "com.hooks.disabled"
        try await fixture.run(webhooks: .testing(retryFor: .seconds(2))) { api in
            try await api.createApp(app, key: keys.admin)
            receiver.fail(with: 500)
            let created = try await create(api, ["url": receiver.url(), "apps": [app]], key: keys.admin)
            try await write(5, app: app, perSecond: 100, database: fixture.url)
            var webhook = try await endpoint(api, created.id, key: keys.admin)
            for _ in 0..<200 where webhook.state != .disabled {
                try await Task.sleep(for: .milliseconds(100))
                webhook = try await endpoint(api, created.id, key: keys.admin)
            }
            #expect(webhook.state == .disabled)
            #expect(webhook.disabledReason?.contains("answered 500") == true, "\(String(describing: webhook.disabledReason))")
            let disabled = try expect(try await api.send(.get, "/v1/history?kind=webhook_disabled", key: keys.admin), .ok,
                                      as: Components.Schemas.HistoryPage.self).items
            #expect(disabled.count == 1)
            #expect(receiver.messages.isEmpty)

            receiver.fail(with: nil)
            let expected = try await sequences(api, app: app, after: Int64(created.deliveredThrough), key: keys.admin)
            let from = try #require(expected.first)
            _ = try problem(try await api.send(.post, "/v1/webhooks/\(created.id)/redeliver", key: keys.admin,
                                               json: ["from": 0]), .unprocessableContent, "validation-failed")
            let resumed = try expect(try await api.send(.post, "/v1/webhooks/\(created.id)/redeliver", key: keys.admin,
                                                        json: ["from": from]), .ok, as: Components.Schemas.Webhook.self)
            #expect(resumed.state == .active && resumed.deliveredThrough == from - 1)
            let received = try await receiver.waitFor(5)
            #expect(received.compactMap(\.sequence) == expected)
            // Redelivered again from the third: the same ids, in order.
            _ = try expect(try await api.send(.post, "/v1/webhooks/\(created.id)/redeliver", key: keys.admin,
                                              json: ["from": expected[2]]), .ok, as: Components.Schemas.Webhook.self)
            var again: [WebhookReceiver.Message] = []
            for _ in 0..<100 where again.count < 8 {
                try await Task.sleep(for: .milliseconds(100))
                again = receiver.messages
            }
            #expect(again.compactMap(\.sequence) == expected + expected.suffix(3))
        }
        await receiver.stop()
    }

    /// Runs a program and answers its status and output (stdout and stderr together).
    static func run(_ path: String, _ arguments: [String]) async throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
