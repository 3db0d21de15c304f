import CatalogTestSupport
import Foundation
import Testing

@Suite("admin-cli history: filtered listings, verification, exports, point in time")
struct HistoryTests {
    /// An app with two products through a few steps, and the instant between the first and second step.
    private func catalog(_ cli: AdminCLI, _ name: String) async throws -> (app: String, between: String) {
        let app = AdminCLI.uniqueApp(name)
        try await cli.succeed("apps", "create", app, "--name", name)
        for product in ["alpha", "beta"] {
            try await cli.succeed("products", "create", product, "--app", app, "--type", "consumable", "--name", product,
                                  "--price", "0.99", "--display-name", "Product \(product)", "--description", "For tests")
        }
        try await Task.sleep(for: .milliseconds(20))
        let between = Date().formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        try await Task.sleep(for: .milliseconds(20))
        try await cli.succeed("approve", "alpha", "--app", app, "--reason", "Tested in the sandbox")
        try await cli.succeed("products", "edit", "beta", "--app", app, "--price", "1.99")
        return (app, between)
    }

    @Test("history lists across products newest first, filters combine, --order oldest reverses")
    func filteredListing() async throws {
        let cli = try await AdminCLI.forTest()
        let (app, between) = try await catalog(cli, "historylist")
        let all = try await cli.succeed("history", "--app", app)
        #expect(all.lines.first?.hasPrefix("SEQ") == true)
        #expect(all.lines.first?.contains("PRODUCT") == true)
        let kinds = all.lines.dropFirst().map { $0.split(separator: " ", omittingEmptySubsequences: true).map(String.init)[4] }
        #expect(kinds == ["edited", "approve", "created", "created", "app_created"], "\(all.stdout)")

        let oldest = try await cli.succeed("history", "--app", app, "--order", "oldest", "--quiet").lines.compactMap(Int.init)
        #expect(oldest == oldest.sorted() && oldest.count == 5)

        let approvals = try await cli.succeed("history", "--app", app, "--action", "approve")
        #expect(approvals.lines.count == 2)
        #expect(approvals.stdout.contains("“Tested in the sandbox”"))
        let since = try await cli.succeed("history", "--app", app, "--since", between, "--quiet")
        #expect(since.lines.count == 2)
        let byKind = try await cli.succeed("history", "--app", app, "--kind", "created", "--state", "pending-developer-approval", "--json").json()
        #expect((byKind["items"] as? [[String: Any]])?.compactMap { $0["productId"] as? String } == ["beta", "alpha"])
        let byActor = try await cli.succeed("history", "--app", app, "--actor", "test admin", "--quiet")
        #expect(byActor.lines.count == 5)
        // One product's story with a filter goes through the filtered listing, oldest first.
        let alpha = try await cli.succeed("history", "alpha", "--app", app, "--kind", "action", "--quiet")
        #expect(alpha.lines.count == 1)
    }

    @Test("history verify: every chain verified, or the first broken link named with exit 67")
    func verify() async throws {
        let cli = try await AdminCLI.forTest()
        let (app, _) = try await catalog(cli, "historyverify")
        let verified = try await cli.succeed("history", "verify", "--app", app)
        #expect(verified.lines.first?.hasPrefix("CHAIN") == true)
        #expect(verified.lines.contains { $0.hasPrefix(app) && $0.contains(" 5 ") && $0.contains("yes") })
        #expect(verified.stdout.contains("Every chain verified"))
        #expect(try await cli.succeed("history", "verify", "--app", app, "--json").json()["verified"] as? Bool == true)

        // A superuser rewrites an event behind the API's back; the chain tells.
        let database = cli.server.database
        try await TestDatabase.execute("ALTER TABLE history_events DISABLE TRIGGER history_events_append_only", in: database)
        try await TestDatabase.execute(
            "UPDATE history_events SET reason = 'Not tested at all' WHERE app = '\(app)' AND action = 'approve'", in: database)
        try await TestDatabase.execute("ALTER TABLE history_events ENABLE TRIGGER history_events_append_only", in: database)
        let broken = try await cli.run("history", "verify", "--app", app)
        #expect(broken.status == 67, "\(broken)")
        #expect(broken.stdout.contains("NO"))
        #expect(broken.stderr.contains("error: the history does not verify: 1 chain is broken"))
        #expect(broken.stderr.contains("\(app): event ") && broken.stderr.contains("hash-mismatch"), "\(broken.stderr)")
    }

    @Test("history export streams CSV or NDJSON to a file or stdout")
    func export() async throws {
        let cli = try await AdminCLI.forTest()
        let (app, _) = try await catalog(cli, "historyexport")
        let csvPath = cli.home.appendingPathComponent("history.csv").path
        let csv = try await cli.succeed("history", "export", "--app", app, "--format", "csv", "--out", csvPath)
        #expect(csv.stdout.isEmpty)
        #expect(csv.stderr.contains("Exported 5 events"))
        let text = try String(contentsOfFile: csvPath, encoding: .utf8)
        let rows = text.split(separator: "\r\n")
        #expect(rows.count == 6, "a header and five events")
        #expect(rows.first?.contains("sequence") == true)
        #expect(!FileManager.default.fileExists(atPath: cli.home.appendingPathComponent(".history.csv.partial").path))

        let ndjson = try await cli.succeed("history", "export", "--app", app, "--format", "ndjson", "--product", "alpha")
        let events = ndjson.lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(events.map { $0["kind"] as? String } == ["created", "action"])

        let unwritable = try await cli.run("history", "export", "--app", app, "--out", "/nonexistent/dir/h.csv")
        #expect(unwritable.status == 65, "\(unwritable)")
    }

    @Test("products show --as-of shows the product as it was then")
    func pointInTime() async throws {
        let cli = try await AdminCLI.forTest()
        let (app, between) = try await catalog(cli, "historyasof")
        let then = try await cli.succeed("products", "show", "alpha", "--app", app, "--as-of", between)
        #expect(then.lines.first?.hasPrefix("As of ") == true)
        #expect(then.lines.contains { $0.hasPrefix("State:") && $0.contains("PENDING_DEVELOPER_APPROVAL") })
        let now = try await cli.succeed("products", "show", "alpha", "--app", app, "--json").json()
        #expect(now["state"] as? String == "APPROVED_BY_DEVELOPER")
        let past = try await cli.succeed("products", "show", "beta", "--app", app, "--as-of", between, "--json").json()
        #expect((past["price"] as? [String: Any])?["amount"] as? String == "0.99")
        let before = try await cli.run("products", "show", "alpha", "--app", app, "--as-of", "2001-01-01")
        #expect(before.status == 66, "\(before)")
    }
}
