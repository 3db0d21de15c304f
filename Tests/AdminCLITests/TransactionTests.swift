import CatalogTestSupport
import Foundation
import PurchaseCore
import Testing

@Suite("admin-cli transactions: the ledger listed, shown, exported and summed up")
struct TransactionTests {
    /// An app's ledger: coins in Production and in the Sandbox on the first of November, premium in the Sandbox
    /// on the second and refunded, and gems, which the catalog lacks, on the third.
    private struct Ledger {
        let world: LivePurchases
        let alice: String, bob: String
        let production = "2100000000000001", sandbox = "2100000000000002", refunded = "2100000000000003",
            mismatch = "2100000000000004"
    }

    private static let first = Date(timeIntervalSince1970: 1_793_527_200)  // 2026-11-01T10:00:00Z

    private func ledger(_ cli: AdminCLI, _ name: String) async throws -> Ledger {
        let world = try await LivePurchases.make(cli, name)
        let ledger = Ledger(world: world, alice: LivePurchases.account(), bob: LivePurchases.account())
        let day: TimeInterval = 86_400
        try await world.buy(world.transaction("coins", environment: .production, id: ledger.production, purchased: Self.first),
                            account: ledger.alice)
        try await world.buy(world.transaction("coins", id: ledger.sandbox, purchased: Self.first.addingTimeInterval(60)),
                            account: ledger.alice)
        let premium = world.transaction("premium", type: .nonConsumable, id: ledger.refunded,
                                        purchased: Self.first.addingTimeInterval(day), price: 4990)
        try await world.buy(premium, account: ledger.bob)
        var refund = premium
        refund.revocationDate = AppStoreDate(Self.first.addingTimeInterval(2 * day))
        refund.revocationReason = .other
        try await world.notify(.refund, about: refund)
        try await world.buy(world.transaction("gems", id: ledger.mismatch, purchased: Self.first.addingTimeInterval(2 * day)),
                            account: ledger.bob)
        return ledger
    }

    @Test("transactions list: newest purchase first, every filter of the API, --order, --json as received, --quiet ids")
    func list() async throws {
        let cli = try await AdminCLI.forTest()
        let ledger = try await ledger(cli, "ledgerlist")
        let app = ledger.world.app
        func ids(_ arguments: String...) async throws -> [String] {
            try await cli.succeed(["transactions", "list", "--app", app, "--quiet"] + arguments).lines
        }
        let table = try await cli.succeed("transactions", "list", "--app", app)
        #expect(table.lines.first?.hasPrefix("TRANSACTION ID") == true && table.lines.first?.contains("ENVIRONMENT  PRODUCT") == true,
                "\(table)")
        #expect(table.lines.dropFirst().map { String($0.prefix(16)) }
                == [ledger.mismatch, ledger.refunded, ledger.sandbox, ledger.production])
        #expect(table.lines.contains { $0.hasPrefix(ledger.refunded) && $0.contains("4.99 USD") && $0.contains("refunded 2026-11-03") })
        #expect(table.lines.contains { $0.hasPrefix(ledger.mismatch) && $0.hasSuffix("catalog mismatch") })
        #expect(table.lines.contains { $0.hasPrefix(ledger.production) && $0.contains("Production") && $0.contains(ledger.alice) })

        #expect(try await ids("--environment", "production") == [ledger.production])
        #expect(try await ids("--environment", "Sandbox", "--product", "coins") == [ledger.sandbox])
        #expect(try await ids("--account", ledger.bob) == [ledger.mismatch, ledger.refunded])
        #expect(try await ids("--original-transaction", ledger.refunded) == [ledger.refunded])
        #expect(try await ids("--since", "2026-11-02", "--until", "2026-11-03") == [ledger.refunded])
        #expect(try await ids("--since", "2026-11-01T10:00:30Z", "--order", "oldest") == [ledger.sandbox, ledger.refunded, ledger.mismatch])

        let json = try await cli.succeed("transactions", "list", "--app", app, "--limit", "3", "--json")
        #expect(json.stdout == (try await ledger.world.directBody("/v1/apps/\(app)/transactions?limit=3")) + "\n")
        let limited = try await cli.succeed("transactions", "list", "--app", app, "--limit", "3")
        #expect(limited.stderr.contains("showing the first 3 transactions"))
        let none = try await cli.succeed("transactions", "list", "--app", app, "--environment", "Xcode")
        #expect(none.stdout.isEmpty && none.stderr.contains("No transactions match."))

        let badAccount = try await cli.run("transactions", "list", "--app", app, "--account", "not-a-token")
        #expect(badAccount.status == 67 || badAccount.status == 64, "\(badAccount)")
        #expect(badAccount.stderr.contains("accountToken"), "the field at fault is named: \(badAccount.stderr)")
        let badEnvironment = try await cli.run("transactions", "list", "--app", app, "--environment", "Staging")
        #expect(badEnvironment.status == 64, "\(badEnvironment)")
    }

    @Test("transactions show: one transaction with its sources; --environment picks one of the same id")
    func show() async throws {
        let cli = try await AdminCLI.forTest()
        let ledger = try await ledger(cli, "ledgershow")
        let app = ledger.world.app
        let refunded = try await cli.succeed("transactions", "show", ledger.refunded, "--app", app)
        #expect(refunded.lines.first == "Transaction:      \(ledger.refunded) in \(app)", "\(refunded)")
        #expect(refunded.lines.contains("Product:          premium"))
        #expect(refunded.lines.contains("Catalog type:     NON_CONSUMABLE"))
        #expect(refunded.lines.contains("Refunded:         2026-11-03T10:00:00Z (another reason)"))
        #expect(refunded.lines.contains("Account:          \(ledger.bob)"))
        let header = try #require(refunded.lines.first { $0.hasPrefix("SOURCE") })
        #expect(header.contains("RECORDED IT"))
        #expect(refunded.lines.contains { $0.hasPrefix("submission ") && $0.hasSuffix("yes") })
        #expect(refunded.lines.contains { $0.hasPrefix("notification ") && $0.hasSuffix("no") })

        let mismatch = try await cli.succeed("transactions", "show", ledger.mismatch, "--app", app)
        #expect(mismatch.lines.contains("Catalog type:     not in the catalog"))
        #expect(mismatch.lines.contains { $0.hasPrefix("Catalog:") && $0.contains("mismatch") })

        let json = try await cli.succeed("transactions", "show", ledger.production, "--app", app, "--environment", "Production", "--json")
        #expect(json.stdout == (try await ledger.world.directBody(
            "/v1/apps/\(app)/transactions/\(ledger.production)?environment=Production")) + "\n")
        #expect(try await cli.succeed("transactions", "show", ledger.sandbox, "--app", app, "--quiet").lines == [ledger.sandbox])
        let otherEnvironment = try await cli.run("transactions", "show", ledger.sandbox, "--app", app, "--environment", "Production")
        #expect(otherEnvironment.status == 66, "\(otherEnvironment)")
        let missing = try await cli.run("transactions", "show", "2999999999999999", "--app", app)
        #expect(missing.status == 66 && missing.stderr.contains("error: Not found"), "\(missing)")
    }

    @Test("transactions export streams CSV or NDJSON, filtered, oldest first, to a file or stdout")
    func export() async throws {
        let cli = try await AdminCLI.forTest()
        let ledger = try await ledger(cli, "ledgerexport")
        let app = ledger.world.app
        let path = cli.home.appendingPathComponent("ledger.csv").path
        let csv = try await cli.succeed("transactions", "export", "--app", app, "--format", "csv", "--out", path)
        #expect(csv.stdout.isEmpty)
        #expect(csv.stderr.contains("Exported 4 transactions"), "\(csv)")
        let rows = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\r\n")
        #expect(rows.count == 5, "a header and four transactions")
        #expect(rows.first?.contains("transactionId") == true, "\(rows.first ?? "")")
        #expect(rows.dropFirst().map { $0.contains(ledger.production) } == [true, false, false, false], "oldest first")
        #expect(!FileManager.default.fileExists(atPath: cli.home.appendingPathComponent(".ledger.csv.partial").path))

        let ndjson = try await cli.succeed("transactions", "export", "--app", app, "--format", "ndjson", "--environment", "Sandbox",
                                           "--order", "newest")
        let lines = ndjson.lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(lines.compactMap { $0["transactionId"] as? String } == [ledger.mismatch, ledger.refunded, ledger.sandbox])
        #expect(ndjson.stderr.isEmpty, "nothing but the export when piped: \(ndjson.stderr)")

        let empty = try await cli.succeed("transactions", "export", "--app", app, "--format", "ndjson", "--account",
                                          LivePurchases.account())
        #expect(empty.stdout.isEmpty)
        let unwritable = try await cli.run("transactions", "export", "--app", app, "--out", "/nonexistent/dir/ledger.csv")
        #expect(unwritable.status == 65, "\(unwritable)")
        let auditor = try await cli.run(["transactions", "export", "--app", app, "--format", "ndjson"],
                                        environment: ["IAP_KEY": cli.server.auditorKey])
        #expect(auditor.status == 0 && auditor.lines.count == 4, "\(auditor)")
    }

    @Test("transactions summary: per day, environment, product and currency; environments never added together")
    func summary() async throws {
        let cli = try await AdminCLI.forTest()
        let ledger = try await ledger(cli, "ledgersummary")
        let app = ledger.world.app
        let table = try await cli.succeed("transactions", "summary", "--app", app)
        #expect(table.lines.first?.hasPrefix("DAY") == true && table.lines.first?.contains("REFUNDED") == true, "\(table)")
        let firstDay = table.lines.filter { $0.hasPrefix("2026-11-01") }
        #expect(firstDay.count == 2, "Production and Sandbox apart: \(table)")
        #expect(firstDay.contains { $0.contains("Production") && $0.contains("coins") && $0.contains("0.99") })
        #expect(firstDay.contains { $0.contains("Sandbox") && $0.contains("coins") && $0.contains("0.99") })
        #expect(table.lines.contains { $0.hasPrefix("2026-11-02") && $0.contains("premium") && $0.hasSuffix("4.99") })

        let production = try await cli.succeed("transactions", "summary", "--app", app, "--environment", "Production", "--json").json()
        let rows = try #require(production["rows"] as? [[String: Any]])
        #expect(rows.count == 1 && rows.first?["transactions"] as? Int == 1 && rows.first?["amount"] as? String == "0.99")
        let refunds = try await cli.succeed("transactions", "summary", "--app", app, "--product", "premium", "--json").json()
        #expect((refunds["rows"] as? [[String: Any]])?.first?["refunds"] as? Int == 1)
        let json = try await cli.succeed("transactions", "summary", "--app", app, "--since", "2026-11-02", "--json")
        #expect(json.stdout == (try await ledger.world.directBody(
            "/v1/apps/\(app)/transactions/summary?since=2026-11-02T00:00:00Z")) + "\n")
        let none = try await cli.succeed("transactions", "summary", "--app", app, "--since", "2027-01-01")
        #expect(none.stdout.isEmpty && none.stderr.contains("No transactions match."))
    }

    @Test("transactions by role and scope: reviewers may not (77), a key of another app finds nothing (66)")
    func rolesAndScopes() async throws {
        let cli = try await AdminCLI.forTest()
        let ledger = try await ledger(cli, "ledgerroles")
        let app = ledger.world.app
        let auditor = ["IAP_KEY": cli.server.auditorKey]
        #expect(try await cli.succeed(["transactions", "list", "--app", app, "--quiet"], environment: auditor).lines.count == 4)
        try await cli.succeed(["transactions", "summary", "--app", app], environment: ["IAP_KEY": cli.server.developerKey])
        let other = AdminCLI.uniqueApp("ledgerother")
        try await cli.succeed("apps", "create", other, "--name", "Other")
        let scoped = try await cli.succeed("keys", "create", "--role", "auditor", "--name", "auditor of \(other)", "--app", other,
                                           "--quiet").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        for arguments in [["transactions", "list"], ["transactions", "show", ledger.production], ["transactions", "summary"],
                          ["transactions", "export"]] {
            let reviewer = try await cli.run(arguments + ["--app", app], environment: ["IAP_KEY": cli.server.reviewerKey])
            #expect(reviewer.status == 77, "\(arguments): \(reviewer)")
            let outside = try await cli.run(arguments + ["--app", app], environment: ["IAP_KEY": scoped])
            #expect(outside.status == 66, "\(arguments): \(outside)")
            let client = try await cli.run(arguments + ["--app", app], environment: ["IAP_KEY": ledger.world.client])
            #expect(client.status == 77, "\(arguments): \(client)")
        }
    }
}
