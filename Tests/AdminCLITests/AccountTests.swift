import CatalogTestSupport
import Foundation
import PurchaseCore
import Testing

@Suite("admin-cli accounts and signals: tokens made, what an account owns, irregular activity")
struct AccountTests {
    @Test("accounts token: both forms, the same for the same account, --quiet two lines, --json as received; never echoed")
    func token() async throws {
        let cli = try await AdminCLI.forTest()
        let world = try await LivePurchases.make(cli, "accounttoken")
        let account = "dana.\(UUID().uuidString)@example.com"
        let shown = try await cli.succeed("accounts", "token", account, "--app", world.app)
        #expect(shown.lines.count == 2, "\(shown)")
        let username = try #require(shown.lines.first { $0.hasPrefix("applicationUsername:") }?.split(separator: " ").last)
        let uuid = try #require(shown.lines.first { $0.hasPrefix("appAccountToken:") }?.split(separator: " ").last)
        #expect(AccountToken(parsing: String(username))?.isApplicationUsername == true, "\(username)")
        #expect(UUID(uuidString: String(uuid)) != nil)
        let quiet = try await cli.succeed("accounts", "token", account, "--app", world.app, "--quiet")
        #expect(quiet.lines == [String(username), String(uuid)])
        let json = try await cli.succeed("accounts", "token", account, "--app", world.app, "--json").json()
        #expect(json["appAccountToken"] as? String == String(uuid) && json["applicationUsername"] as? String == String(username))
        #expect(json["account"] == nil)
        for result in [shown, quiet] { #expect(!result.stdout.contains(account) && !result.stderr.contains(account)) }

        // An auditor may not make tokens; an account of 513 characters is refused, without being repeated.
        let auditor = try await cli.run(["accounts", "token", account, "--app", world.app],
                                        environment: ["IAP_KEY": cli.server.auditorKey])
        #expect(auditor.status == 77, "\(auditor)")
        let long = String(repeating: "x", count: 513)
        let refused = try await cli.run("accounts", "token", long, "--app", world.app)
        #expect(refused.status == 65 || refused.status == 67, "\(refused)")
        #expect(refused.stderr.contains("account") && !refused.stderr.contains(long), "\(refused)")
    }

    @Test("accounts show: owned, refunded, and the account's transactions; by either form; --quiet ids; --json as received")
    func show() async throws {
        let cli = try await AdminCLI.forTest()
        let world = try await LivePurchases.make(cli, "accountshow")
        let tokens = try await cli.succeed("accounts", "token", "erin", "--app", world.app, "--quiet").lines
        let (username, uuid) = (tokens[0], tokens[1])
        let bought = Date(timeIntervalSince1970: 1_793_527_200)  // 2026-11-01T10:00:00Z
        try await world.buy(world.transaction("coins", id: "2200000000000001", purchased: bought), account: username)
        try await world.buy(world.transaction("coins", id: "2200000000000002", purchased: bought.addingTimeInterval(60)),
                            account: uuid)
        var premium = world.transaction("premium", type: .nonConsumable, id: "2200000000000003",
                                        purchased: bought.addingTimeInterval(120))
        try await world.buy(premium, account: uuid)
        let owned = try await cli.succeed("accounts", "show", uuid, "--app", world.app)
        #expect(owned.lines.first == "Account:      \(uuid) in \(world.app)", "\(owned)")
        #expect(owned.lines.contains("Account key:  \(uuid)"))
        #expect(owned.lines.contains { $0.hasPrefix("consumable") && $0.contains("coins") && $0.contains("2 units in 2 purchases") },
                "\(owned)")
        #expect(owned.lines.contains { $0.hasPrefix("non-consumable") && $0.contains("premium") && $0.contains("2200000000000003") })
        #expect(owned.lines.contains { $0.hasPrefix("TRANSACTION ID") })

        premium.revocationDate = AppStoreDate(bought.addingTimeInterval(86_400))
        premium.revocationReason = .appIssue
        try await world.notify(.refund, about: premium)
        let refunded = try await cli.succeed("accounts", "show", username, "--app", world.app)
        #expect(refunded.lines.contains { $0.hasPrefix("refunded") && $0.contains("premium")
                && $0.contains("2026-11-02T10:00:00Z (an issue in the app)") }, "\(refunded)")
        #expect(!refunded.lines.contains { $0.hasPrefix("non-consumable") })
        #expect(try await cli.succeed("accounts", "show", username, "--app", world.app, "--quiet").lines
                == ["2200000000000003", "2200000000000002", "2200000000000001"])
        let json = try await cli.succeed("accounts", "show", uuid, "--app", world.app, "--json").json()
        #expect((json["transactions"] as? [Any])?.count == 3 && json["accountKey"] as? String == uuid)

        let nobody = try await cli.succeed("accounts", "show", LivePurchases.account(), "--app", world.app)
        #expect(nobody.stderr.contains("No transactions are credited to this account."), "\(nobody)")
        let malformed = try await cli.run("accounts", "show", "not-a-token", "--app", world.app)
        #expect(malformed.status == 65 || malformed.status == 67, "\(malformed)")
        let auditor = try await cli.run(["accounts", "show", uuid, "--app", world.app], environment: ["IAP_KEY": cli.server.auditorKey])
        #expect(auditor.status == 77, "\(auditor)")
    }

    @Test("signals: a shared transaction and a refund, newest first; filters by kind and account; --quiet ids; paged")
    func signals() async throws {
        let cli = try await AdminCLI.forTest()
        let world = try await LivePurchases.make(cli, "signals")
        let (alice, bob) = (LivePurchases.account(), LivePurchases.account())
        var premium = world.transaction("premium", type: .nonConsumable, id: "2300000000000001")
        try await world.buy(premium, account: alice)
        try await world.buy(premium, account: bob)
        premium.revocationDate = AppStoreDate(Date())
        premium.revocationReason = .other
        try await world.notify(.refund, about: premium)

        let table = try await cli.succeed("signals", "--app", world.app)
        #expect(table.lines.first?.hasPrefix("ID") == true && table.lines.first?.contains("KIND") == true, "\(table)")
        #expect(table.lines.dropFirst().map { $0.split(separator: " ")[1] } == ["refund", "sharedTransaction"], "\(table)")
        #expect(table.lines.contains { $0.contains("sharedTransaction") && $0.contains(alice)
                && $0.contains("also brought for \(bob) (not credited)") }, "\(table)")
        #expect(table.lines.contains { $0.contains("refund") && $0.contains("another reason, Sandbox") })

        let shared = try await cli.succeed("signals", "--app", world.app, "--kind", "sharedtransaction", "--quiet")
        #expect(shared.lines.count == 1)
        #expect(try await cli.succeed("signals", "--app", world.app, "--account", bob, "--quiet").lines == shared.lines)
        let paged = try await cli.succeed("signals", "--app", world.app, "--limit", "1")
        #expect(paged.lines.count == 2 && paged.stderr.contains("showing the first 1 signals"), "\(paged)")
        let all = try await cli.succeed("signals", "--app", world.app, "--all", "--quiet")
        #expect(all.lines.count == 2)
        let json = try await cli.succeed("signals", "--app", world.app, "--json", "--kind", "refund").json()
        #expect((json["items"] as? [[String: Any]])?.first?["kind"] as? String == "refund")
        let none = try await cli.succeed("signals", "--app", world.app, "--since", "2099-01-01")
        #expect(none.stdout.isEmpty && none.stderr.contains("No signals match."))
        #expect(try await cli.run("signals", "--app", world.app, "--kind", "fraud").status == 64)
        let auditor = try await cli.run(["signals", "--app", world.app, "--quiet"], environment: ["IAP_KEY": cli.server.auditorKey])
        #expect(auditor.status == 0 && auditor.lines.count == 2, "\(auditor)")
    }
}
