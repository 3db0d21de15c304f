import CatalogTestSupport
import Foundation
import Testing

@Suite("admin-cli webhooks: endpoints, deliveries, redelivery")
struct WebhooksTests {
    @Test("webhooks create, list, deliveries, redeliver and delete; the secret is printed once")
    func lifecycle() async throws {
        let cli = try await AdminCLI.forTest()
        let receiver = try await WebhookReceiver.start()
        let app = AdminCLI.uniqueApp("webhooks")
        try await cli.succeed("apps", "create", app, "--name", "Hooks")
        let created = try await cli.succeed("webhooks", "create", receiver.url("/in?token=receiver-token"), "--app", app,
                                            "--kind", "created", "--json").json()
        let id = try #require(created["id"] as? String)
        let secret = try #require(created["secret"] as? String)
        #expect(secret.hasPrefix("whsec_"))

        try await cli.succeed("products", "create", "coins", "--app", app, "--type", "consumable", "--name", "Coins",
                              "--price", "0.99", "--display-name", "Coins", "--description", "For tests")
        let received = try await receiver.waitFor(1)
        let sequence = try #require(received.first?.sequence)

        var deliveries = try await cli.succeed("webhooks", "deliveries", id)
        #expect(deliveries.lines.first?.hasPrefix("SEQ") == true)
        #expect(deliveries.stdout.contains("delivered") && deliveries.stdout.contains(String(sequence)), "\(deliveries)")
        let listed = try await cli.succeed("webhooks", "list")
        #expect(listed.stdout.contains(id) && listed.stdout.contains("active"), "\(listed)")

        let redelivered = try await cli.succeed("webhooks", "redeliver", id, "--from", String(sequence))
        #expect(redelivered.stdout.contains("from event \(sequence)"), "\(redelivered)")
        for _ in 0..<100 where receiver.messages.count < 2 { try await Task.sleep(for: .milliseconds(100)) }
        #expect(receiver.messages.map(\.id) == ["evt_\(sequence)", "evt_\(sequence)"])
        deliveries = try await cli.succeed("webhooks", "deliveries", id, "--quiet")
        #expect(deliveries.lines == [String(sequence), String(sequence)], "\(deliveries)")

        let usage = try await cli.run("webhooks", "redeliver", id, "--from", "0")
        #expect(usage.status == 64)
        let refused = try await cli.run("webhooks", "create", "https://10.0.0.1/hook")
        #expect(refused.status == 67 && refused.stderr.contains("url: 10.0.0.1 is private network"), "\(refused)")

        try await cli.succeed("webhooks", "delete", id, "--yes")
        let gone = try await cli.run("webhooks", "deliveries", id)
        #expect(gone.status == 66, "\(gone)")

        // The secret is in the creation's answer only.
        for output in [deliveries, listed, redelivered, try await cli.succeed("webhooks", "list", "--json"),
                       try await cli.succeed("history", "--kind", "webhook_created", "--json")] {
            #expect(!output.stdout.contains(secret.dropFirst(6)) && !output.stderr.contains(secret.dropFirst(6)))
        }
        await receiver.stop()
    }
}
