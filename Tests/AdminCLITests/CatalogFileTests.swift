import CatalogTestSupport
import Foundation
import Testing

@Suite("admin-cli catalog pull, plan and apply: the catalog kept in a file")
struct CatalogFileTests {
    /// An app with a group, a subscription on sale and a consumable.
    static func app(_ cli: AdminCLI, _ name: String) async throws -> String {
        let app = AdminCLI.uniqueApp(name)
        try await cli.succeed("apps", "create", app, "--name", "Files")
        try await cli.succeed("groups", "create", "--app", app, "--name", "Pro", "--display-name", "Pro Access")
        try await cli.succeed("products", "create", "pro.monthly", "--app", app, "--type", "auto-renewable", "--name", "Pro monthly",
                              "--group", "Pro", "--level", "1", "--duration", "P1M", "--price", "4.99", "--display-name",
                              "Pro Monthly", "--description", "Everything, monthly")
        try await cli.succeed("products", "create", "coins.100", "--app", app, "--type", "consumable", "--name", "100 coins",
                              "--price", "0.99", "--display-name", "100 Coins", "--description", "A pile of coins")
        for action in ["approve", "submit"] { try await cli.succeed(action, "pro.monthly", "--app", app) }
        for action in ["start", "accept"] { try await cli.succeed("review", action, "pro.monthly", "--app", app) }
        return app
    }

    @Test("pull, edit with comments, plan (exit 2), apply, plan again (exit 0); pull keeps the comments")
    func workflow() async throws {
        let cli = try await AdminCLI.forTest()
        let app = try await Self.app(cli, "files")
        let path = cli.home.appendingPathComponent("catalog.yaml").path
        let pulled = try await cli.succeed("catalog", "pull", "--app", app, "--out", path)
        #expect(pulled.stderr.contains("Wrote the catalog of \(app) to \(path): 1 subscription group, 2 products"))
        var text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.hasPrefix("# yaml-language-server: $schema=\(cli.server.url)/v1/schemas/catalog-file.json\n"))
        #expect(try await cli.run("catalog", "plan", path, "--app", app).status == 0)

        // A product manager's change, with comments.
        text = text.replacingOccurrences(of: "  - productId: coins.100\n", with: "  # Coins: price agreed with finance.\n  - productId: coins.100\n")
        text = text.replacingOccurrences(of: "amount: \"0.99\"", with: "amount: \"1.09\" # was 0.99")
        text = text.replacingOccurrences(of: "displayName: Pro Monthly\n", with: "displayName: Pro Monthly Plus\n")
        text += """
              - productId: coins.500
                type: CONSUMABLE
                referenceName: 500 coins
                price: {currency: USD, amount: "3.99"}

            """
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let plan = try await cli.run("catalog", "plan", path, "--app", app, "--no-color")
        #expect(plan.status == 2, "\(plan)")
        #expect(plan.stdout.contains("~ update  product  coins.100"))
        #expect(plan.stdout.contains("      price: 0.99 USD → 1.09 USD"))
        #expect(plan.stdout.contains("      localizations: ") && plan.stdout.contains("  draft"))
        #expect(plan.stdout.contains("then: admin-cli submit-change pro.monthly"))
        #expect(plan.stdout.contains("+ create  product  coins.500"))
        #expect(plan.stdout.contains("Plan: 1 to create, 2 to update, 0 to delete, 0 unchanged."), "\(plan.stdout)")
        let json = try await cli.run("catalog", "plan", path, "--app", app, "--json")
        let answer = try json.json()
        #expect(json.status == 2 && answer["hasChanges"] as? Bool == true)

        // Not at a terminal, apply needs --yes.
        #expect(try await cli.run("catalog", "apply", path, "--app", app).status == 64)
        let applied = try await cli.succeed("catalog", "apply", path, "--app", app, "--yes", "--no-color")
        #expect(applied.stdout.contains("Applied catalog.yaml to \(app): 1 created, 2 updated, 0 deleted, 0 unchanged"))
        #expect(applied.stderr.contains("Next: admin-cli submit-change pro.monthly"))
        #expect(try await cli.run("catalog", "plan", path, "--app", app).status == 0)
        let history = try await cli.succeed("history", "coins.100", "--app", app, "--json").json()
        let reasons = (history["items"] as? [[String: Any]] ?? []).compactMap { $0["reason"] as? String }
        #expect(reasons.contains { $0.hasPrefix("catalog file \"catalog.yaml\" (sha256 ") })

        // Pull into the file: the comments stay, and the file is as the catalog is now.
        try await cli.succeed("catalog", "pull", "--app", app, "--out", path)
        let again = try String(contentsOfFile: path, encoding: .utf8)
        #expect(again.contains("  # Coins: price agreed with finance.\n  - productId: coins.100\n"))
        #expect(again.contains("amount: \"1.09\" # was 0.99"))
        #expect(again.contains("productId: coins.500"))
        // JSON too, by the file's extension.
        let jsonPath = cli.home.appendingPathComponent("catalog.json").path
        try await cli.succeed("catalog", "pull", "--app", app, "--out", jsonPath)
        let document = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: jsonPath))) as? [String: Any]
        #expect((document?["products"] as? [Any])?.count == 3 && document?["$schema"] as? String != nil)
        #expect(try await cli.run("catalog", "plan", jsonPath, "--app", app).status == 0)
    }

    @Test("refusals exit 67 with each path; a change between plan and apply applies nothing and shows the new plan")
    func refusedAndRaced() async throws {
        let cli = try await AdminCLI.forTest()
        let app = try await Self.app(cli, "filesrefused")
        let path = cli.home.appendingPathComponent("catalog.yaml").path
        try await cli.succeed("catalog", "pull", "--app", app, "--out", path)
        let original = try String(contentsOfFile: path, encoding: .utf8)
        try Data(original.replacingOccurrences(of: "type: CONSUMABLE", with: "type: NON_CONSUMABLE").utf8)
            .write(to: URL(fileURLWithPath: path))
        let refused = try await cli.run("catalog", "plan", path, "--app", app, "--no-color")
        #expect(refused.status == 67)
        #expect(refused.stdout.contains("products[0].type (coins.100): a product's type never changes"), "\(refused)")
        #expect(try await cli.run("catalog", "apply", path, "--app", app, "--yes").status == 67)

        // A file that is not a catalog file: exit 65, each problem with its path and line.
        let bad = try cli.file("bad.yaml", "version: 1\nprodcts: []\n")
        let badResult = try await cli.run("catalog", "plan", bad, "--app", app)
        #expect(badResult.status == 65 && badResult.stderr.contains("  prodcts: unknown key \"prodcts\"; did you mean \"products\"? (line 2)"))

        // The plan reviewed, then a change in the catalog before the apply: nothing is applied, the new plan is shown.
        try Data(original.replacingOccurrences(of: "referenceName: 100 coins", with: "referenceName: Coins").utf8)
            .write(to: URL(fileURLWithPath: path))
        let reviewed = try await cli.run("catalog", "plan", path, "--app", app, "--json")
        let fingerprint = try #require(try reviewed.json()["fingerprint"] as? String)
        try await cli.succeed("products", "edit", "coins.100", "--app", app, "--price", "1.19")
        let raced = try await cli.run("catalog", "apply", path, "--app", app, "--yes", "--fingerprint", fingerprint, "--no-color")
        #expect(raced.status == 67, "\(raced)")
        #expect(raced.stderr.contains("error: The catalog changed since the plan"))
        #expect(raced.stdout.contains("price: 1.19 USD → 0.99 USD"), "the new plan undoes the edit: \(raced)")
        let product = try await cli.succeed("products", "show", "coins.100", "--app", app, "--json").json()
        #expect(product["referenceName"] as? String == "100 coins")
        // Applied as the plan now shows it.
        let applied = try await cli.succeed("catalog", "apply", path, "--app", app, "--yes")
        #expect(applied.stdout.contains("1 updated"))
    }

    @Test("deletions only with --allow-deletions: without it a product the file leaves out stays, planned as kept")
    func deletions() async throws {
        let cli = try await AdminCLI.forTest()
        let app = AdminCLI.uniqueApp("filesdelete")
        try await cli.succeed("apps", "create", app, "--name", "Deletions")
        try await cli.succeed("products", "create", "coins.100", "--app", app, "--type", "consumable", "--name", "100 coins")
        let empty = try cli.file("empty.yaml", "version: 1\n")
        let keeping = try await cli.run("catalog", "plan", empty, "--app", app, "--no-color")
        #expect(keeping.status == 0, "\(keeping)")
        #expect(keeping.stdout.contains("kept     coins.100  not in the file: stays (--allow-deletions deletes it)"))
        let kept = try await cli.succeed("catalog", "apply", empty, "--app", app, "--yes")
        #expect(kept.stderr.contains("Nothing to apply"), "\(kept)")
        try await cli.succeed("products", "show", "coins.100", "--app", app)

        let deleting = try await cli.run("catalog", "plan", empty, "--app", app, "--allow-deletions", "--no-color")
        #expect(deleting.status == 2 && deleting.stdout.contains("- delete  product  coins.100"), "\(deleting)")
        let deleted = try await cli.succeed("catalog", "apply", empty, "--app", app, "--allow-deletions", "--yes")
        #expect(deleted.stdout.contains("0 created, 0 updated, 1 deleted"), "\(deleted)")
        #expect(try await cli.run("products", "show", "coins.100", "--app", app).status == 66)
    }

    @Test("StoreKit import: each repair named, and --skip-invalid names what it leaves out")
    func storeKitRepairs() async throws {
        let cli = try await AdminCLI.forTest()
        let app = AdminCLI.uniqueApp("repairs")
        try await cli.succeed("apps", "create", app, "--name", "Repairs")
        let shared = StoreKitFixture.purchaseTester.url.path
        let plan = try await cli.succeed("import", "storekit", shared, "--app", app, "--dry-run", "--no-color")
        let repaired = plan.stderr.split(separator: "\n").filter { $0.hasPrefix("repaired: ") }
        #expect(repaired.count == 6, "\(plan)")
        #expect(repaired.first.map(String.init) == "repaired: subscriptionGroups[0].subscriptions[0].referenceName: "
            + "\"monthly free trial\" is also the referenceName of subscriptionGroups[2].subscriptions[1] in another group: "
            + "named after its group, \"monthly free trial (subscription_group)\"")
        #expect(plan.stdout.contains("6 repairs made"))
        let null = try cli.file(StoreKitVariant.nullReferenceName.fileName, try StoreKitVariant.nullReferenceName.text)
        let imported = try await cli.succeed("import", "storekit", null, "--app", app, "--no-color")
        #expect(imported.stderr.contains("repaired: products[0].referenceName: is null in the file: named after the productId, \"lifetime\""))
        #expect(imported.stdout.contains("1 repair made"))
    }
}
