import CatalogTestSupport
import Foundation
import Testing

@Suite("admin-cli events tail: the history followed live")
struct EventsTests {
    @Test("events tail prints the events after a sequence, then new ones as they happen, and stops after --count")
    func tail() async throws {
        let cli = try await AdminCLI.forTest()
        let app = AdminCLI.uniqueApp("eventstail")
        try await cli.succeed("apps", "create", app, "--name", "Tail")
        try await cli.succeed("products", "create", "coins", "--app", app, "--type", "consumable", "--name", "Coins",
                              "--price", "0.99", "--display-name", "Coins", "--description", "For tests")
        let past = try await cli.succeed("events", "tail", "--app", app, "--after", "0", "--count", "2", "--quiet")
        let sequences = past.lines.compactMap(Int64.init)
        #expect(sequences.count == 2 && sequences == sequences.sorted(), "\(past)")

        // Followed live: the approval happens while the command waits on the stream.
        let last = try #require(sequences.last)
        let following = Task {
            try await cli.run("events", "tail", "--app", app, "--after", String(last), "--count", "2", "--json")
        }
        try await Task.sleep(for: .seconds(1))
        try await cli.succeed("approve", "coins", "--app", app, "--reason", "Looks right")
        try await cli.succeed("products", "edit", "coins", "--app", app, "--price", "1.99")
        let live = try await following.value
        #expect(live.status == 0, "\(live)")
        let events = try live.lines.map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        #expect(events.map { $0["kind"] as? String } == ["action", "edited"], "\(live)")
        #expect(events.first?["action"] as? String == "approve")
        #expect(events.first?["reason"] as? String == "Looks right")
        #expect(events.compactMap { $0["sequence"] as? Int64 }.allSatisfy { $0 > last })

        // People read one line per event: what, where, who, why.
        let human = try await cli.succeed("events", "tail", "--app", app, "--after", String(last), "--count", "1")
        #expect(human.lines.count == 1)
        #expect(human.stdout.contains("approve") && human.stdout.contains("“Looks right”") && human.stdout.contains(app),
                "\(human)")
    }

    @Test("events tail refuses a negative --after and an app the key may not see")
    func refusals() async throws {
        let cli = try await AdminCLI.forTest()
        let usage = try await cli.run("events", "tail", "--after", "-1")
        #expect(usage.status == 64, "\(usage)")
        let mine = AdminCLI.uniqueApp("eventsmine")
        let other = AdminCLI.uniqueApp("eventsother")
        try await cli.succeed("apps", "create", mine, "--name", "Mine")
        try await cli.succeed("apps", "create", other, "--name", "Other")
        let token = try await cli.succeed("keys", "create", "--role", "auditor", "--name", "tail", "--app", mine, "--quiet")
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let hidden = try await cli.run(["events", "tail", "--app", other, "--count", "1"], environment: ["IAP_KEY": token])
        #expect(hidden.status == 66, "\(hidden)")
        #expect(hidden.stdout.isEmpty && hidden.stderr.contains("no app"), "\(hidden)")
    }
}
