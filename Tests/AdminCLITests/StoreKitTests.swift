import CatalogTestSupport
import Foundation
import StoreKitConfiguration
import Testing

@Suite("admin-cli import storekit and export storekit: real files in and out, all or nothing")
struct StoreKitTests {
    @Test("each fixture: the dry run plans and writes nothing, the import creates, the draft export gives the file back",
          arguments: StoreKitFixture.allCases)
    func roundTrip(_ fixture: StoreKitFixture) async throws {
        let cli = try await AdminCLI.forTest()
        let app = AdminCLI.uniqueApp("storekit")
        try await cli.succeed("apps", "create", app, "--name", "StoreKit")
        let original = try fixture.data
        let file = fixture.url.path

        let plan = try await cli.succeed("import", "storekit", file, "--app", app, "--dry-run")
        #expect(plan.lines.first?.hasPrefix("PATH") == true, "\(plan)")
        #expect(plan.stdout.contains("Dry run, nothing written"))
        let planned = plan.lines.dropFirst().filter { !$0.hasPrefix("Dry run") }
        #expect(!planned.isEmpty && planned.allSatisfy { $0.contains(" create") }, "\(plan)")
        #expect(try await cli.succeed("products", "list", "--app", app, "--quiet").lines.isEmpty)

        let imported = try await cli.succeed("import", "storekit", file, "--app", app, "--quiet")
        #expect(imported.lines.count == planned.count)
        let listed = try await cli.succeed("products", "list", "--app", app, "--all", "--quiet").lines
        #expect(Set(listed) == Set(imported.lines))
        let events = try await cli.succeed("history", "--app", app, "--kind", "created", "--json").json()
        let reasons = (events["items"] as? [[String: Any]] ?? []).compactMap { $0["reason"] as? String }
        #expect(reasons.count == planned.count
            && reasons.allSatisfy { $0.hasPrefix("imported from StoreKit file \"\(fixture.rawValue)\"") }, "\(reasons)")

        let draft = try await cli.succeed("export", "storekit", "--app", app, "--draft")
        #expect(draft.stdout == (try fixture.exportText))
        #expect(try StoreKitJSON(parsing: Array(draft.stdout.utf8)).isEquivalent(to: StoreKitJSON(parsing: original)))
        // Nothing is on sale yet: the live export (the default) is a file without products.
        let live = try await cli.succeed("export", "storekit", "--app", app)
        let configuration = try StoreKitConfiguration(data: Array(live.stdout.utf8))
        #expect(configuration.products.isEmpty && configuration.subscriptionGroups.isEmpty)
        #expect(live.stderr.contains("Exported the live catalog of \(app)"))
    }

    @Test("an invalid file is refused whole: every problem with its path, exit 67, nothing written")
    func invalidFile() async throws {
        let cli = try await AdminCLI.forTest()
        let app = AdminCLI.uniqueApp("storekitinvalid")
        try await cli.succeed("apps", "create", app, "--name", "Invalid")
        var file = try StoreKitJSON(parsing: try StoreKitFixture.backyardBirds.data)
        let subscriptions: [StoreKitJSONPath.Component] = [.key("subscriptionGroups"), .index(0), .key("subscriptions")]
        file = file.replacing([.key("products"), .index(0), .key("type")], with: "AutoRenewable")
        file = file.replacing([.key("products"), .index(3), .key("productID")], with: "pellet.box")
        file = file.replacing(subscriptions + [.index(2), .key("localizations"), .index(0), .key("displayName")],
                              with: .string(String(repeating: "p", count: 31)))
        let path = try cli.file("Invalid.storekit", XcodeJSONWriter.string(for: file))
        for dryRun in [[], ["--dry-run"]] {
            let refused = try await cli.run(["import", "storekit", path, "--app", app] + dryRun)
            #expect(refused.status == 67, "\(refused)")
            #expect(refused.stderr.hasPrefix("error: Invalid.storekit was not imported, none of it: 3 problems"), "\(refused)")
            #expect(refused.stderr.contains("  products[0].type: "), "\(refused)")
            #expect(refused.stderr.contains("  products[3].productID: "), "\(refused)")
            #expect(refused.stderr.contains(
                "  subscriptionGroups[0].subscriptions[2].localizations[0].displayName: 31 characters, at most 30"), "\(refused)")
        }
        #expect(try await cli.succeed("products", "list", "--app", app, "--quiet").lines.isEmpty)

        let notJSON = try await cli.run("import", "storekit", try cli.file("Broken.storekit", "{\"products\": [\n  {,"), "--app", app)
        #expect(notJSON.status == 65, "\(notJSON)")
        #expect(notJSON.stderr.contains("Broken.storekit") && notJSON.stderr.contains("line 2"), "\(notJSON)")
        let missing = try await cli.run("import", "storekit", "Nowhere.storekit", "--app", app)
        #expect(missing.status == 65 && missing.stderr.contains("no such file"), "\(missing)")
        let currency = try await cli.run("import", "storekit", StoreKitFixture.glagolitsa.url.path, "--app", app, "--currency", "usd")
        #expect(currency.status == 67 && currency.stderr.contains("  currency: "), "\(currency)")
    }

    @Test("products already in the app: the same are unchanged, changed ones are conflicts (exit 67) and nothing is written")
    func conflicts() async throws {
        let cli = try await AdminCLI.forTest()
        let app = AdminCLI.uniqueApp("storekitconflict")
        try await cli.succeed("apps", "create", app, "--name", "Conflicts")
        let file = StoreKitFixture.backyardBirds.url.path
        try await cli.succeed("import", "storekit", file, "--app", app)
        let again = try await cli.succeed("import", "storekit", file, "--app", app)
        #expect(again.stdout.contains("0 products created") && again.stdout.contains("9 unchanged"), "\(again)")

        try await cli.succeed("products", "edit", "pellet.box", "--app", app, "--price", "4.49")
        let refused = try await cli.run("import", "storekit", file, "--app", app)
        #expect(refused.status == 67, "\(refused)")
        #expect(refused.stderr.contains("error: The file conflicts with the catalog"), "\(refused)")
        #expect(refused.stderr.contains("  products[1] pellet.box: already in the catalog with another price"), "\(refused)")

        let plan = try await cli.run("import", "storekit", file, "--app", app, "--dry-run")
        #expect(plan.status == 67, "\(plan)")
        #expect(plan.lines.contains { $0.hasPrefix("products[1]") && $0.contains("pellet.box") && $0.contains("conflict") })
        #expect(plan.lines.contains { $0.hasPrefix("products[0]") && $0.contains("unchanged") })
        #expect(plan.stderr.contains("the import would be refused: 1 product conflicts with the catalog"), "\(plan)")
        #expect(try await cli.run("products", "show", "pellet.box", "--app", app, "--json").json()
            .description.contains("4.49"))
    }

    @Test("export storekit: a product the format cannot hold is named on stderr; --live is the default")
    func skippedProducts() async throws {
        let cli = try await AdminCLI.forTest()
        let app = AdminCLI.uniqueApp("storekitskipped")
        try await cli.succeed("apps", "create", app, "--name", "Skipped", "--newsstand")
        try await cli.succeed("import", "storekit", StoreKitFixture.glagolitsa.url.path, "--app", app, "--currency", "EUR")
        try await cli.succeed("products", "create", "news.free", "--app", app, "--type", "free-subscription", "--name", "Free")
        let draft = try await cli.succeed("export", "storekit", "--app", app, "--draft")
        #expect(draft.stderr.contains("skipped: news.free: a free subscription, which a StoreKit file cannot hold"), "\(draft)")
        #expect(try StoreKitConfiguration(data: Array(draft.stdout.utf8)).products.count == 1)
        let quiet = try await cli.succeed("export", "storekit", "--app", app, "--draft", "--quiet")
        #expect(quiet.stderr.contains("skipped: news.free") && !quiet.stderr.contains("Exported"), "\(quiet)")
        let usage = try await cli.run("export", "storekit", "--app", app, "--json")
        #expect(usage.status == 64, "\(usage)")
    }

    @Test("on a terminal the import shows its progress on stderr; the file's private key is never shown")
    func progressOnATerminal() async throws {
        let cli = try await AdminCLI.forTest()
        let app = AdminCLI.uniqueApp("storekitprogress")
        try await cli.succeed("apps", "create", app, "--name", "Progress")
        let secret = "MIGTAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBHkwdwIBAQQg" + UUID().uuidString.replacingOccurrences(of: "-", with: "")
        var file = try StoreKitJSON(parsing: try StoreKitFixture.leftPocket.data)
        file = file.replacing([.key("subscriptionOffersKeyPair")], with: ["id": "5509FCF1", "privateKey": .string(secret)])
        let path = try cli.file("Secret.storekit", XcodeJSONWriter.string(for: file))
        // script(1) runs the command on a pseudo-terminal, as a person would; its stdout is that terminal's.
        let command = "\(AdminCLI.binary.path) import storekit \(path) --app \(app)"
        let result = try await cli.runProgram("/usr/bin/script", ["-qec", command, "/dev/null"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("Uploading 9 products") || result.stdout.contains("checking and writing 9 products"),
                "\(result)")
        #expect(result.stdout.contains("Imported Secret.storekit into \(app): 9 products created"), "\(result)")
        #expect(!result.stdout.contains(secret) && !result.stderr.contains(secret))
        let exported = try await cli.succeed("export", "storekit", "--app", app, "--draft")
        #expect(exported.stdout == XcodeJSONWriter.string(for: file), "the key comes back in the file, and only there")
    }
}
