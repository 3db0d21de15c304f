import AppStoreStandIn
import CatalogAPI
import CatalogCore
import CatalogServer
import CatalogTestSupport
import Foundation
import HTTPTypes
import HummingbirdTesting
import PurchaseCore
import Testing

/// The console's ledger pages on real PostgreSQL, in-process: the transactions with the API's filters and keyset
/// pages, one transaction with its sources and `catalogMismatch`, the reconciliation summary (Production never
/// mixed with the test environments), and who may read them.
@Suite("Console: transactions and reconciliation")
struct ConsoleLedgerTests {
    static let suite = "console_ledger"
    static let noon = Date(timeIntervalSince1970: 1_763_985_600)  // 2025-11-24T12:00:00Z

    /// The row links of a transactions page, in order.
    static func transactionLinks(_ html: String) -> [String] {
        html.components(separatedBy: #"<tr><th scope="row"><a href=""#).dropFirst().map { String($0.prefix { $0 != "\"" }) }
    }

    /// The part of a summary page that is one environment's table.
    static func table(_ html: String, _ environment: String) -> String? {
        guard let start = html.range(of: #"id="summary-\#(environment)""#) else { return nil }
        return String(html[start.upperBound...]).components(separatedBy: "</section>")[0]
    }

    @Test("transactions a keyset page at a time with the filters kept; a refused filter named; one transaction with its sources and catalogMismatch")
    func transactions() async throws {
        let fixture = try await APIFixture.forSuite(Self.suite)
        try await fixture.purchases { api in
            let world = try await PurchaseWorld.make(api, fixture: fixture, app: "console.ledger.list")
            for index in 0..<51 {
                let transaction = world.transaction(purchased: Self.noon.addingTimeInterval(Double(index) * 60))
                _ = try expect(try await world.submit(api, try world.signed(transaction)), .ok,
                               as: Components.Schemas.PurchaseSubmission.self)
            }
            // A Production sale of a product the catalog does not have, brought by two accounts' submissions.
            let first = PurchaseWorld.account()
            let ghost = world.transaction("ghost.pack", environment: .production, account: UUID(uuidString: first),
                                          purchased: Self.noon.addingTimeInterval(-3600))
            let jws = try world.signed(ghost)
            _ = try expect(try await world.submit(api, jws, account: first), .ok, as: Components.Schemas.PurchaseSubmission.self)
            _ = try expect(try await world.submit(api, jws, account: PurchaseWorld.account()), .ok,
                           as: Components.Schemas.PurchaseSubmission.self)

            let auditor = try await ConsoleTests.signIn(api, key: world.keys.auditor)
            let base = "/console/apps/\(world.app)/transactions"
            let (status, page) = try await ConsoleTests.page(api, base + "?environment=Sandbox", auditor)
            #expect(status == .ok)
            #expect(Self.transactionLinks(page).count == 50 && !page.contains("ghost.pack"))
            let next = try #require(ConsoleTests.nextHref(page))
            #expect(next.contains("environment=Sandbox") && next.contains("cursor="))
            let second = try await ConsoleTests.page(api, next, auditor).1
            #expect(Self.transactionLinks(second).count == 1 && ConsoleTests.nextHref(second) == nil)
            #expect(Set(Self.transactionLinks(page) + Self.transactionLinks(second)).count == 51)

            let production = try await ConsoleTests.page(api, base + "?environment=Production", auditor).1
            #expect(Self.transactionLinks(production).count == 1)
            #expect(production.contains("ghost.pack") && production.contains("not as in the catalog"))
            #expect(production.contains(first), "the account token credited")

            for (query, field) in [("environment=Moon", "environment"), ("accountToken=alice", "accountToken"),
                                   ("since=yesterday", "since")] {
                let (status, html) = try await ConsoleTests.page(api, base + "?" + query, auditor)
                #expect(status == .unprocessableContent && html.contains(field) && html.contains(#"id="filter""#), "\(query)")
            }

            let one = try await ConsoleTests.page(api, try #require(Self.transactionLinks(production).first)
                .replacingOccurrences(of: "&amp;", with: "&"), auditor)
            #expect(one.0 == .ok)
            #expect(one.1.contains(#"id="catalog-mismatch""#) && one.1.contains("has no product ghost.pack"))
            #expect(one.1.components(separatedBy: #"<tr><th scope="row">submission</th>"#).count == 3, "two sources")
            #expect(one.1.components(separatedBy: "<td>yes</td>").count == 2, "one of them recorded it first")
            let known = try await ConsoleTests.page(api, try #require(Self.transactionLinks(page).first)
                .replacingOccurrences(of: "&amp;", with: "&"), auditor).1
            #expect(known.contains(#"id="catalog-match""#) && !known.contains(#"id="catalog-mismatch""#))
            let missing = try await ConsoleTests.page(api, base + "/404404404?environment=Production", auditor)
            #expect(missing.0 == .notFound)
        }
    }

    @Test("the summary: one table per environment with its own totals, Production never added to Sandbox or Xcode")
    func summary() async throws {
        let fixture = try await APIFixture.forSuite(Self.suite)
        try await fixture.purchases { api in
            let world = try await PurchaseWorld.make(api, fixture: fixture, app: "console.ledger.summary")
            _ = try expect(try await api.send(.put, "/v1/apps/\(world.app)/store-settings", key: world.keys.admin,
                                              json: ["acceptXcode": true]), .ok, as: Components.Schemas.StoreSettings.self)
            var sent: [AppStoreTransaction] = []
            for (environment, quantity) in [(AppStoreEnvironment.production, 2), (.production, 1), (.sandbox, 5), (.xcode, 7)] {
                var transaction = world.transaction(environment: environment, purchased: Self.noon)
                transaction.quantity = quantity
                sent.append(transaction)
                _ = try expect(try await world.submit(api, try world.signed(transaction)), .ok,
                               as: Components.Schemas.PurchaseSubmission.self)
            }
            var refunded = sent[0]
            refunded.revocationDate = AppStoreDate(Self.noon.addingTimeInterval(3600))
            refunded.revocationReason = .appIssue
            let refund = try PurchaseWorld.signer.notification(type: .refund, about: refunded)
            _ = try expect(try await api.send(.post, "/v1/apps/\(world.app)/notifications/app-store",
                                              json: ["signedPayload": try PurchaseWorld.signer.sign(refund)]), .ok,
                           as: Components.Schemas.AppStoreNotificationReceipt.self)

            let developer = try await ConsoleTests.signIn(api, key: world.keys.developer)
            let path = "/console/apps/\(world.app)/transactions/summary"
            let (status, html) = try await ConsoleTests.page(api, path, developer)
            #expect(status == .ok)
            let production = try #require(Self.table(html, "Production"))
            #expect(production.contains(#"<td class="units">3</td>"#) && production.contains(#"<td class="amount">1.98</td>"#))
            #expect(production.contains(#"<td class="refunds">1</td>"#) && production.contains(#"<td class="refunded">0.99</td>"#))
            #expect(!production.contains(#"<td class="units">8</td>"#) && !production.contains(#"<td class="units">15</td>"#))
            #expect(try #require(Self.table(html, "Sandbox")).contains(#"<td class="units">5</td>"#))
            #expect(try #require(Self.table(html, "Xcode")).contains(#"<td class="units">7</td>"#))
            #expect(try #require(html.range(of: "summary-Production")).lowerBound
                < (try #require(html.range(of: "summary-Sandbox")).lowerBound), "Production first")

            let sandboxOnly = try await ConsoleTests.page(api, path + "?environment=Sandbox", developer).1
            #expect(Self.table(sandboxOnly, "Production") == nil && Self.table(sandboxOnly, "Sandbox") != nil)
            let later = try await ConsoleTests.page(api, path + "?since=2025-11-25T00:00", developer).1
            #expect(later.contains(#"id="summary-empty""#))
            let refused = try await ConsoleTests.page(api, path + "?environment=Moon&until=soon", developer)
            #expect(refused.0 == .unprocessableContent && refused.1.contains("environment") && refused.1.contains("until"))

            let transaction = try await ConsoleTests.page(
                api, "/console/apps/\(world.app)/transactions/\(sent[0].transactionId!)?environment=Production", developer).1
            #expect(transaction.contains(#"id="transaction-revoked""#) && transaction.contains("1: an issue in the app"))
            #expect(transaction.contains(#"<tr><th scope="row">notification</th>"#), "the refund's notification is a source")
            let history = try await ConsoleTests.page(
                api, "/console/history?app=\(world.app)&productId=coins&kind=transaction_updated", developer)
            #expect(history.0 == .ok && history.1.contains("transaction_updated") && history.1.contains("revocationDate"),
                    "the refund is in the app's history")
            #expect(transaction.contains(#"href="/console/history?app=\#(world.app)&amp;productId=coins" id="product-history""#))
        }
    }

    @Test("who reads the ledger in the console: auditors and developers; reviewers are refused as by the API; a scoped key sees only its apps")
    func access() async throws {
        let fixture = try await APIFixture.forSuite(Self.suite)
        try await fixture.purchases { api in
            let world = try await PurchaseWorld.make(api, fixture: fixture, app: "console.ledger.access")
            try await api.createApp("console.ledger.theirs", key: world.keys.admin)
            let hostile = #"<script>alert(1)</script><b>x</b>"#
            _ = try expect(try await world.submit(api, try world.signed(world.transaction(hostile))), .ok,
                           as: Components.Schemas.PurchaseSubmission.self)
            let paths = ["/console/apps/\(world.app)/transactions", "/console/apps/\(world.app)/transactions/summary"]

            let auditor = try await ConsoleTests.signIn(api, key: world.keys.auditor)
            let apps = try await ConsoleTests.page(api, "/console/apps", auditor).1
            #expect(apps.contains(#"href="\#(paths[0])""#) && apps.contains(#"href="\#(paths[1])""#))
            for path in paths {
                let (status, html) = try await ConsoleTests.page(api, path, auditor)
                #expect(status == .ok, "\(path)")
                #expect(!html.contains("<script") && !html.contains("<b>x"), "\(path): a product id is text")
                #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "\(path)")
            }

            try await api.createProduct(world.app, "sold", type: .consumable, key: world.keys.admin)
            let product = "/console/apps/\(world.app)/products/sold"
            #expect(try await ConsoleTests.page(api, product, auditor).1.contains(#"href="\#(paths[0])?productId=sold" id="sales""#))
            let reviewer = try await ConsoleTests.signIn(api, key: world.keys.reviewer)
            #expect(!(try await ConsoleTests.page(api, "/console/apps", reviewer).1.contains(paths[0])), "no link it may not follow")
            #expect(!(try await ConsoleTests.page(api, product, reviewer).1.contains(#"id="sales""#)))
            for path in paths {
                #expect(try await ConsoleTests.page(api, path, reviewer).0 == .forbidden, "\(path)")
            }

            let scoped = try await fixture.key(.auditor, apps: ["console.ledger.theirs"])
            let outsider = try await ConsoleTests.signIn(api, key: scoped)
            for path in paths {
                let (status, html) = try await ConsoleTests.page(api, path, outsider)
                #expect(status == .notFound && !html.contains("alert(1)"), "\(path)")
            }
            #expect(try await ConsoleTests.page(api, "/console/apps/console.ledger.theirs/transactions", outsider).0 == .ok)
        }
    }
}
