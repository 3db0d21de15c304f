import CatalogTestSupport
import Foundation
import Testing

@Suite("admin-cli purchases: submissions listed, shown, pending and retried")
struct PurchaseTests {
    /// An app with a verified signed transaction, a queued receipt, a retrying one and a failed one, each from
    /// its own account.
    private struct Queue {
        let world: LivePurchases
        let verified: String, queued: String, retrying: String, failed: String
        let alice: String
    }

    private func queue(_ cli: AdminCLI, _ name: String) async throws -> Queue {
        let world = try await LivePurchases.make(cli, name)
        let alice = LivePurchases.account()
        let verified = try await world.buy(world.transaction("coins"), account: alice)
        let failed = try await world.queueReceipt(account: LivePurchases.account())
        try await world.markFailed(failed)
        let retrying = try await world.queueReceipt(account: LivePurchases.account())
        try await world.markRetrying(retrying)
        let queued = try await world.queueReceipt(account: LivePurchases.account())
        return Queue(world: world, verified: verified, queued: queued, retrying: retrying, failed: failed, alice: alice)
    }

    @Test("purchases list: newest first as a table, filtered by status and account, --json pages as received, --quiet ids")
    func list() async throws {
        let cli = try await AdminCLI.forTest()
        let queue = try await queue(cli, "purchaselist")
        let app = queue.world.app
        let table = try await cli.succeed("purchases", "list", "--app", app)
        #expect(table.lines.first?.hasPrefix("ID") == true && table.lines.first?.contains("STATUS") == true, "\(table)")
        #expect(table.lines.dropFirst().map { String($0.prefix(36)) } == [queue.queued, queue.retrying, queue.failed, queue.verified])
        let verifiedRow = try #require(table.lines.first { $0.hasPrefix(queue.verified) })
        #expect(verifiedRow.contains("verified") && verifiedRow.contains("signed transaction") && verifiedRow.contains("Sandbox")
                && verifiedRow.hasSuffix(queue.alice))
        #expect(table.lines.contains { $0.hasPrefix(queue.failed) && $0.contains("failed") && $0.contains("receipt") })

        #expect(try await cli.succeed("purchases", "list", "--app", app, "--status", "failed", "--quiet").lines == [queue.failed])
        #expect(try await cli.succeed("purchases", "list", "--app", app, "--account", queue.alice.uppercased(), "--quiet").lines
                == [queue.verified])
        let none = try await cli.succeed("purchases", "list", "--app", app, "--status", "invalid")
        #expect(none.stdout.isEmpty && none.stderr.contains("No submissions match."))

        let limited = try await cli.succeed("purchases", "list", "--app", app, "--limit", "2")
        #expect(limited.lines.count == 3)
        #expect(limited.stderr.contains("showing the first 2 submissions; --all or --limit N for more"))
        let json = try await cli.succeed("purchases", "list", "--app", app, "--limit", "2", "--json")
        #expect(json.stdout == (try await queue.world.directBody("/v1/apps/\(app)/purchases/submissions?limit=2")) + "\n",
                "--json prints the page as the API sent it")
        // Pages are followed: two of two, one document each.
        let paged = try await cli.succeed("purchases", "list", "--app", app, "--limit", "4", "--json")
        #expect(paged.lines.count == 1)
        #expect(try await cli.succeed("purchases", "list", "--app", app, "--all", "--quiet").lines.count == 4)

        // The app comes from IAP_APP as for every per-app command; without one, a usage error.
        #expect(try await cli.succeed("purchases", "list", "--quiet", environment: ["IAP_APP": app]).lines.count == 4)
        let noApp = try await cli.run("purchases", "list")
        #expect(noApp.status == 64 && noApp.stderr.contains("which app?"), "\(noApp)")
        let badStatus = try await cli.run("purchases", "list", "--app", app, "--status", "paid")
        #expect(badStatus.status == 64, "\(badStatus)")
    }

    @Test("purchases pending: queued, verifying and retrying only, with the next attempt and the last problem")
    func pending() async throws {
        let cli = try await AdminCLI.forTest()
        let queue = try await queue(cli, "purchasepending")
        let app = queue.world.app
        let pending = try await cli.succeed("purchases", "pending", "--app", app)
        let header = try #require(pending.lines.first)
        #expect(header.contains("NEXT ATTEMPT") && header.contains("LAST PROBLEM"), "\(pending)")
        #expect(pending.lines.dropFirst().map { String($0.prefix(36)) } == [queue.queued, queue.retrying])
        let retrying = try #require(pending.lines.first { $0.hasPrefix(queue.retrying) })
        #expect(retrying.contains("retrying") && (retrying.contains("(in 9m") || retrying.contains("(in 10m")), "\(retrying)")
        #expect(retrying.hasSuffix("The App Store did not answer in time"))
        #expect(pending.lines.first { $0.hasPrefix(queue.queued) }?.contains("(due)") == true, "a queued receipt is due at once")
        #expect(pending.stderr.contains("2 pending: 1 queued, 0 verifying, 1 retrying."), "\(pending.stderr)")
        #expect(try await cli.succeed("purchases", "pending", "--app", app, "--quiet").lines == [queue.queued, queue.retrying])
        let json = try await cli.succeed("purchases", "pending", "--app", app, "--json").json()
        #expect((json["items"] as? [[String: Any]])?.compactMap { $0["status"] as? String } == ["queued", "retrying"])

        let quiet = try await LivePurchases.make(cli, "purchasenothing")
        let nothing = try await cli.succeed("purchases", "pending", "--app", quiet.app)
        #expect(nothing.stdout.isEmpty && nothing.stderr.contains("Nothing pending"))
    }

    @Test("purchases show: the submission, its problems, and the transactions it credited")
    func show() async throws {
        let cli = try await AdminCLI.forTest()
        let queue = try await queue(cli, "purchaseshow")
        let app = queue.world.app
        let shown = try await cli.succeed("purchases", "show", queue.verified, "--app", app)
        #expect(shown.lines.contains("Submission:   \(queue.verified)"), "\(shown)")
        #expect(shown.lines.contains("Status:       verified"))
        #expect(shown.lines.contains("Kind:         signed transaction"))
        #expect(shown.lines.contains("Account:      \(queue.alice)"))
        let header = try #require(shown.lines.first { $0.hasPrefix("TRANSACTION ID") })
        #expect(header.contains("CREDITED"))
        #expect(shown.lines.contains { $0.contains("coins") && $0.contains("0.99 USD") && $0.contains(" yes ") }, "\(shown)")

        let json = try await cli.succeed("purchases", "show", queue.verified, "--app", app, "--json")
        #expect(json.stdout == (try await queue.world.directBody("/v1/apps/\(app)/purchases/submissions/\(queue.verified)")) + "\n")
        #expect((try json.json()["transactions"] as? [Any])?.count == 1)
        #expect(try await cli.succeed("purchases", "show", queue.verified, "--app", app, "--quiet").lines == [queue.verified])

        let failed = try await cli.succeed("purchases", "show", queue.failed, "--app", app)
        #expect(failed.lines.contains("Status:       failed"))
        #expect(failed.stdout.contains("Problems\n  The App Store did not answer in time\n  No decision within the retry period\n"))
        #expect(!failed.stdout.contains("TRANSACTION ID"))
        let retrying = try await cli.succeed("purchases", "show", queue.retrying, "--app", app, "--wait", "0")
        #expect(retrying.lines.contains { $0.hasPrefix("Next attempt:") && $0.contains("(in ") })

        let missing = try await cli.run("purchases", "show", UUID().uuidString.lowercased(), "--app", app)
        #expect(missing.status == 66, "\(missing)")
        #expect(missing.stderr.hasPrefix("error: Not found"))
        let badWait = try await cli.run("purchases", "show", queue.verified, "--app", app, "--wait", "21")
        #expect(badWait.status == 64, "\(badWait)")
    }

    @Test("purchases retry: a failed or retrying receipt due now; a final or queued one refused with 67")
    func retry() async throws {
        let cli = try await AdminCLI.forTest()
        let queue = try await queue(cli, "purchaseretry")
        let app = queue.world.app
        let retried = try await cli.succeed("purchases", "retry", queue.failed, "--app", app)
        #expect(retried.stdout.hasPrefix("\(queue.failed): retrying, next attempt "), "\(retried)")
        #expect(retried.stdout.contains("(due)") && retried.stdout.contains("(5 attempts so far)"))
        #expect(retried.stderr.contains("admin-cli purchases show \(queue.failed) --app \(app) --wait 20"))
        let pending = try await cli.succeed("purchases", "pending", "--app", app, "--quiet").lines
        #expect(Set(pending) == [queue.queued, queue.retrying, queue.failed])

        let json = try await cli.succeed("purchases", "retry", queue.retrying, "--app", app, "--json").json()
        #expect(json["status"] as? String == "retrying" && json["id"] as? String == queue.retrying)
        let developer = try await cli.run(["purchases", "retry", queue.retrying, "--app", app, "--quiet"],
                                          environment: ["IAP_KEY": cli.server.developerKey])
        #expect(developer.status == 0 && developer.stdout == queue.retrying + "\n", "\(developer)")

        for id in [queue.verified, queue.queued] {
            let refused = try await cli.run("purchases", "retry", id, "--app", app)
            #expect(refused.status == 67, "\(refused)")
            #expect(refused.stderr.hasPrefix("error: "), "\(refused)")
        }
        let refusedJSON = try await cli.run("purchases", "retry", queue.verified, "--app", app, "--json")
        #expect(try refusedJSON.json()["status"] as? Int == 409, "the problem, as received")
        let missing = try await cli.run("purchases", "retry", UUID().uuidString, "--app", app)
        #expect(missing.status == 66, "\(missing)")
    }

    @Test("purchases by role and scope: auditors read, reviewers may not (77), a key of another app finds nothing (66)")
    func rolesAndScopes() async throws {
        let cli = try await AdminCLI.forTest()
        let queue = try await queue(cli, "purchaseroles")
        let app = queue.world.app
        let auditor = ["IAP_KEY": cli.server.auditorKey]
        #expect(try await cli.succeed(["purchases", "list", "--app", app, "--quiet"], environment: auditor).lines.count == 4)
        try await cli.succeed(["purchases", "show", queue.failed, "--app", app], environment: auditor)
        let auditorRetry = try await cli.run(["purchases", "retry", queue.failed, "--app", app], environment: auditor)
        #expect(auditorRetry.status == 77, "\(auditorRetry)")
        #expect(auditorRetry.stderr.contains("hint: your key's role may not do this"))
        let reviewer = try await cli.run(["purchases", "list", "--app", app], environment: ["IAP_KEY": cli.server.reviewerKey])
        #expect(reviewer.status == 77, "\(reviewer)")

        // A developer key of another app: this app does not exist for it.
        let other = AdminCLI.uniqueApp("purchaseother")
        try await cli.succeed("apps", "create", other, "--name", "Other")
        let scoped = try await cli.succeed("keys", "create", "--role", "developer", "--name", "dev of \(other)", "--app", other,
                                           "--quiet").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        for arguments in [["purchases", "list"], ["purchases", "pending"], ["purchases", "show", queue.verified],
                          ["purchases", "retry", queue.failed]] {
            let result = try await cli.run(arguments + ["--app", app], environment: ["IAP_KEY": scoped])
            #expect(result.status == 66, "\(arguments): \(result)")
        }
        #expect(try await cli.succeed(["purchases", "list", "--app", other], environment: ["IAP_KEY": scoped]).stdout.isEmpty)

        // A client key sees the submissions it made, and no other client key's.
        let client = ["IAP_KEY": queue.world.client]
        #expect(try await cli.succeed(["purchases", "list", "--app", app, "--quiet"], environment: client).lines.count == 4)
        let second = try await cli.succeed("keys", "create", "--role", "client", "--name", "second client", "--app", app, "--quiet")
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try await cli.succeed(["purchases", "list", "--app", app, "--quiet"], environment: ["IAP_KEY": second]).lines.isEmpty)
        let foreign = try await cli.run(["purchases", "show", queue.verified, "--app", app], environment: ["IAP_KEY": second])
        #expect(foreign.status == 66, "\(foreign)")
    }
}
