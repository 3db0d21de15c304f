import Foundation
import Testing

@Suite("admin-cli drives the whole catalog lifecycle")
struct LifecycleTests {
    /// The state a product is in, read through the CLI.
    private func state(_ cli: AdminCLI, _ product: String, app: String) async throws -> String? {
        try await cli.succeed("products", "show", product, "--app", app, "--json").json()["state"] as? String
    }

    @Test("an app, a group and products of every type, from creation through review to sale and back")
    func wholeLifecycle() async throws {
        let admin = try await AdminCLI.forTest()
        let app = AdminCLI.uniqueApp("lifecycle")
        // The developer and the reviewer each use their own key, as in real life.
        let developer = ["IAP_KEY": admin.server.developerKey, "IAP_APP": app]
        let reviewer = ["IAP_KEY": admin.server.reviewerKey, "IAP_APP": app]
        @discardableResult
        func dev(_ arguments: String...) async throws -> CLIResult {
            try await admin.succeed(arguments, environment: developer)
        }
        @discardableResult
        func review(_ arguments: String...) async throws -> CLIResult {
            try await admin.succeed(arguments, environment: reviewer)
        }

        try await admin.succeed("apps", "create", app, "--name", "Lifecycle", "--newsstand", "--primary-locale", "en-US")
        let group = try await dev("groups", "create", "--name", "Pro", "--display-name", "Pro Access")
        #expect(group.stdout.contains("Created group Pro."))
        #expect(group.stdout.contains("en-US: Pro Access"))

        // A consumable, complete at creation: approve, submit, review, on sale.
        try await dev("products", "create", "coins.100", "--type", "consumable", "--name", "100 coins",
                      "--price", "0.99", "--display-name", "100 Coins", "--description", "A pile of coins")
        let approved = try await dev("approve", "coins.100")
        #expect(approved.stdout.contains("coins.100: approve done, now APPROVED_BY_DEVELOPER (version 2)"))
        #expect(approved.stdout.contains("Next: submit"))
        try await dev("submit", "coins.100")
        try await review("review", "start", "coins.100")
        let accepted = try await review("review", "accept", "coins.100")
        #expect(accepted.stdout.contains("now READY_FOR_SALE"))
        #expect(accepted.stdout.contains("on sale"))

        // A non-consumable created bare: approve says what is missing, item by item.
        try await dev("products", "create", "level.pack", "--type", "non-consumable", "--name", "Level pack")
        let incomplete = try await admin.run(["approve", "level.pack"], environment: developer)
        #expect(incomplete.status == 67, "\(incomplete)")
        #expect(incomplete.stderr.contains("error: The product is not complete for approval"))
        #expect(incomplete.stderr.contains("  localizations: needs a localization in the app's primary locale en-US"))
        #expect(incomplete.stderr.contains("  price: needs a price (0 for a free NON_CONSUMABLE)"))
        let shown = try await dev("products", "show", "level.pack")
        #expect(shown.stdout.contains("Missing for approval:"))
        #expect(shown.stdout.contains("  price: needs a price (0 for a free NON_CONSUMABLE)"))
        try await dev("products", "edit", "level.pack", "--price", "2.99", "--display-name", "Level Pack",
                      "--description", "Ten new levels", "--family-shareable")
        try await dev("approve", "level.pack")
        let submitted = try await dev("submit", "level.pack", "--json").json()
        #expect(submitted["state"] as? String == "WAITING_FOR_REVIEW")
        #expect(submitted["allowedActions"] as? [String] == ["withdraw"], "a developer key may only withdraw now")
        try await review("review", "start", "level.pack")
        try await review("review", "request-changes", "level.pack", "--reason", "Describe the levels")
        #expect(try await state(admin, "level.pack", app: app) == "DEVELOPER_ACTION_REQUIRED")
        try await dev("products", "edit", "level.pack", "--description", "Ten new desert levels")
        try await dev("resubmit", "level.pack")
        try await review("review", "start", "level.pack")
        try await review("review", "reject", "level.pack", "--reason", "Duplicate of another product")
        #expect(try await state(admin, "level.pack", app: app) == "REJECTED")

        // An auto-renewable subscription in the group, with a free trial; then a change of a live product.
        try await dev("products", "create", "pro.monthly", "--type", "auto-renewable", "--name", "Pro monthly",
                      "--group", "Pro", "--level", "1", "--duration", "P1M", "--price", "4.99",
                      "--display-name", "Pro Monthly", "--description", "Everything, monthly",
                      "--offer-mode", "free-trial", "--offer-period", "P1W")
        for step in [["approve"], ["submit"]] { try await admin.succeed(step + ["pro.monthly"], environment: developer) }
        try await review("review", "start", "pro.monthly")
        try await review("review", "accept", "pro.monthly")
        try await dev("products", "edit", "pro.monthly", "--display-name", "Pro Monthly Plus")
        let sideBySide = try await dev("products", "show", "pro.monthly")
        #expect(sideBySide.stdout.contains("LIVE"), "\(sideBySide)")
        #expect(sideBySide.stdout.contains("DRAFT"))
        let nameRow = sideBySide.lines.first { $0.hasPrefix("Name (en-US)") } ?? ""
        #expect(nameRow.contains("Pro Monthly ") && nameRow.contains("Pro Monthly Plus") && nameRow.hasSuffix("changed"),
                "\(sideBySide.stdout)")
        try await dev("submit-change", "pro.monthly")
        try await review("review", "start", "pro.monthly")
        try await review("review", "accept", "pro.monthly")
        let afterChange = try await admin.succeed("products", "show", "pro.monthly", "--app", app, "--json").json()
        #expect((afterChange["live"] as? [String: Any]).flatMap { ($0["localizations"] as? [[String: Any]])?.first?["displayName"] as? String }
            == "Pro Monthly Plus")

        // Off sale and back: the public identifiers follow.
        #expect(try await admin.succeed("identifiers", "--app", app).lines == ["coins.100", "pro.monthly"])
        try await dev("remove-from-sale", "pro.monthly", "--reason", "Pausing")
        #expect(try await admin.succeed("identifiers", "--app", app).lines == ["coins.100"])
        try await dev("restore-to-sale", "pro.monthly")
        #expect(try await admin.succeed("identifiers", "--app", app, "--type", "auto-renewable").lines == ["pro.monthly"])

        // A change sent back, then cancelled: the live product stays as it was.
        try await dev("products", "edit", "coins.100", "--display-name", "120 Coins")
        try await dev("submit-change", "coins.100")
        try await review("review", "start", "coins.100")
        try await review("review", "request-changes", "coins.100", "--reason", "Name mismatch")
        try await dev("cancel-change", "coins.100")
        #expect(try await state(admin, "coins.100", app: app) == "READY_FOR_SALE")

        // A free subscription (Newsstand app) and a non-renewing one, withdrawn from review.
        try await dev("products", "create", "free.news", "--type", "free-subscription", "--name", "Free news",
                      "--price", "0", "--display-name", "Free News", "--description", "Daily headlines")
        try await dev("approve", "free.news")
        try await dev("products", "create", "season.pass", "--type", "non-renewing", "--name", "Season pass",
                      "--price", "9.99", "--display-name", "Season Pass", "--description", "All of summer")
        try await dev("approve", "season.pass")
        try await dev("submit", "season.pass")
        let withdrawn = try await dev("withdraw", "season.pass", "--reason", "Price change")
        #expect(withdrawn.stdout.contains("now APPROVED_BY_DEVELOPER"))

        // The list, and the history of one product, all through the CLI.
        let list = try await dev("products", "list")
        #expect(list.lines.first?.hasPrefix("PRODUCT ID") == true)
        #expect(list.lines.dropFirst().map { $0.split(separator: " ").first.map(String.init) ?? "" }
            == ["coins.100", "free.news", "level.pack", "pro.monthly", "season.pass"])
        let rejected = try await dev("products", "list", "--state", "rejected", "--quiet")
        #expect(rejected.lines == ["level.pack"])

        let history = try await dev("history", "level.pack")
        let events = history.lines.dropFirst().map { line in line.split(separator: " ", omittingEmptySubsequences: true).map(String.init) }
        #expect(events.map { $0.count > 2 ? $0[2] : "" } == ["created", "edited", "approve", "submit", "review", "review", "edited",
                                                             "resubmit", "review", "review"], "\(history.stdout)")
        #expect(history.stdout.contains("“Duplicate of another product”"))
        #expect(history.stdout.contains("test reviewer (reviewer)"))
        let historyJSON = try await dev("history", "level.pack", "--json").json()
        #expect((historyJSON["items"] as? [[String: Any]])?.count == 10)

        // Delete a product never submitted; its productId stays reserved.
        try await dev("products", "create", "temp.item", "--type", "consumable", "--name", "Temporary")
        let deleted = try await dev("products", "delete", "temp.item", "--yes")
        #expect(deleted.stdout.contains("Deleted temp.item"))
        let again = try await admin.run(["products", "create", "temp.item", "--type", "consumable", "--name", "Again"],
                                        environment: developer)
        #expect(again.status == 67, "\(again)")
    }

    @Test("bulk create from a JSON array: every product made, failures reported, the rest go on")
    func bulkCreate() async throws {
        let cli = try await AdminCLI.forTest()
        let app = AdminCLI.uniqueApp("bulk")
        try await cli.succeed("apps", "create", app, "--name", "Bulk")
        let good = (1...12).map { #"{"productId": "gem.\#($0)", "referenceName": "Gems \#($0)", "type": "CONSUMABLE", "price": {"currency": "USD", "amount": "0.99"}}"# }
        let file = try cli.file("bulk.json", "[" + good.joined(separator: ",") + "]")
        let created = try await cli.succeed("products", "create", "--app", app, "--file", file)
        #expect(created.stdout.contains("Created 12 of 12 products in \(app)."))
        #expect(try await cli.succeed("products", "list", "--app", app, "--quiet", "--limit", "5").lines
            == ["gem.1", "gem.10", "gem.11", "gem.12", "gem.2"])
        #expect(try await cli.succeed("products", "list", "--app", app, "--quiet", "--all").lines.count == 12)

        let mixed = try cli.file("mixed.json", """
            [{"productId": "ok.one", "referenceName": "Fine", "type": "CONSUMABLE"},
             {"productId": "bad one", "referenceName": "Bad id", "type": "CONSUMABLE"},
             {"productId": "gem.1", "referenceName": "Taken", "type": "CONSUMABLE"}]
            """)
        let result = try await cli.run("products", "create", "--app", app, "--file", mixed, "--quiet")
        #expect(result.status == 67, "\(result)")
        #expect(result.lines == ["ok.one"])
        #expect(result.stderr.contains("2 of 3 products could not be created"))
        #expect(result.stderr.contains("bad one:"))
        #expect(result.stderr.contains("gem.1:"))
    }
}
