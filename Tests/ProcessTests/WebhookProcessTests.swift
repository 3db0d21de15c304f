import CatalogAPI
import CatalogCore
import CatalogStore
import CatalogTestSupport
import Foundation
import NIOHTTP1
import Testing

/// Webhook deliveries across real server processes: a server killed between a change and its delivery, several
/// servers sharing the endpoints, and the secret in no log line at trace level.
@Suite("Webhooks in server processes")
struct WebhookProcessTests {
    /// Deliveries to the receiver on loopback over http, retried within a second, leases that a killed process
    /// gives up within two.
    static let environment = ["WEBHOOK_ALLOW_LOOPBACK_HTTP": "1", "WEBHOOK_LEASE_SECONDS": "2",
                              "WEBHOOK_RETRY_FIRST_SECONDS": "0.3", "WEBHOOK_RETRY_MAXIMUM_SECONDS": "1"]

    @Test("kill -9 between the changes and their delivery: delivered after restart, by two servers, in order, once")
    func killedBeforeDelivery() async throws {
        let url = try await TestDatabase.forSuite("webhook_process")
        let service = try await TestDatabase.serviceURL(for: url)
        let admin = try await TestKeys.make(.admin, in: url)
        let developer = try await TestKeys.make(.developer, in: url)
        let receiver = try await WebhookReceiver.start()
        let app = "com.process.webhooks"

        // The receiver refuses everything while the first server takes the changes: none is delivered.
        receiver.fail(with: 503)
        let first = try await ServerProcess(databaseURL: service, migrationURL: url, environment: Self.environment,
                                            logLevel: "trace")
        let caller = ServiceCaller(first.baseURL)
        try await caller.createApp(app, key: admin)
        let created = try await caller.call(.POST, "/v1/webhooks", key: admin,
                                            json: #"{"url":"\#(receiver.url("/in?token=receiver-token"))","apps":["\#(app)"]}"#)
        #expect(created.status == 201, "\(created.body)")
        let webhook = try caller.decode(Components.Schemas.CreatedWebhook.self, from: created)
        let products = (0..<40).map { "p\($0)" }
        for id in products { try await caller.createProduct(app, id, key: developer) }
        try await Task.sleep(for: .milliseconds(500))
        first.send(SIGKILL)
        #expect(try await first.waitForExit() == SIGKILL)
        let log = first.log
        #expect(receiver.messages.isEmpty)

        // Back up, with two servers sharing the work: every event once, in order.
        receiver.fail(with: nil)
        let second = try await ServerProcess(databaseURL: service, migrationURL: url, environment: Self.environment,
                                             logLevel: "trace")
        let third = try await ServerProcess(databaseURL: service, migrationURL: url, environment: Self.environment)
        let received = try await receiver.waitFor(40, timeout: .seconds(60))
        let events = try ServiceCaller(second.baseURL).decode(
            Components.Schemas.EventPage.self,
            from: try await ServiceCaller(second.baseURL).call(
                .GET, "/v1/events?app=\(app)&after=\(webhook.deliveredThrough)&limit=200", key: admin))
        #expect(received.compactMap(\.sequence) == events.items.map { Int64($0.sequence) })
        #expect(received.count == 40 && events.items.count == 40 && events.items.allSatisfy { $0.kind == .created })
        try await Task.sleep(for: .seconds(1))
        #expect(receiver.messages.count == 40, "duplicates: \(receiver.messages.count - 40)")

        for server in [second, third] {
            server.send(SIGTERM)
            #expect(try await server.waitForExit() == 0)
        }
        let secretBody = String(webhook.secret.dropFirst("whsec_".count))
        for text in [log, second.log, third.log] {
            #expect(!text.contains(secretBody), "the webhook secret was logged")
            #expect(!text.contains("receiver-token"), "the webhook URL's query was logged")
        }
        #expect(second.log.contains("trace"), "no trace lines")
        await receiver.stop()
    }
}
