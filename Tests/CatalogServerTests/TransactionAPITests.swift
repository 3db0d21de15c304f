import AppStoreStandIn
import CatalogAPI
import CatalogCore
import CatalogTestSupport
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import PurchaseCore
import Testing

/// The ledger's reads: listings with filters and keyset pages, one transaction with its sources, the summary
/// finance reconciles, CSV and NDJSON exports.
@Suite("Transactions API")
struct TransactionAPITests {
    static let suite = "transactions_api"
    static let day: TimeInterval = 86_400

    @Test("Sandbox and Xcode never mix with Production in the summary; days, units, amounts and refunds add up")
    func summary() async throws {
        let fixture = try await APIFixture.forSuite(Self.suite)
        try await fixture.purchases { api in
            let world = try await PurchaseWorld.make(api, fixture: fixture, app: "com.ledger.summary")
            _ = try expect(try await api.send(.put, "/v1/apps/\(world.app)/store-settings", key: world.keys.admin,
                                              json: ["acceptXcode": true]), .ok, as: Components.Schemas.StoreSettings.self)
            let noon = Date(timeIntervalSince1970: 1_763_985_600)  // 2025-11-24T12:00:00Z
            var sent: [AppStoreTransaction] = []
            for (environment, quantity) in [(AppStoreEnvironment.production, 2), (.production, 1), (.sandbox, 5), (.xcode, 7)] {
                var transaction = world.transaction(environment: environment, purchased: noon)
                transaction.quantity = quantity
                sent.append(transaction)
                _ = try expect(try await world.submit(api, try world.signed(transaction)), .ok,
                               as: Components.Schemas.PurchaseSubmission.self)
            }
            // A refund of the first, as the App Store notifies it.
            var refunded = sent[0]
            refunded.revocationDate = AppStoreDate(noon.addingTimeInterval(3600))
            refunded.revocationReason = .appIssue
            let refund = try PurchaseWorld.signer.notification(type: .refund, about: refunded)
            _ = try expect(try await api.send(.post, "/v1/apps/\(world.app)/notifications/app-store",
                                              json: ["signedPayload": try PurchaseWorld.signer.sign(refund)]), .ok,
                           as: Components.Schemas.AppStoreNotificationReceipt.self)
            let rows = try expect(try await api.send(.get, "/v1/apps/\(world.app)/transactions/summary",
                                                     key: world.keys.auditor), .ok,
                                  as: Components.Schemas.TransactionSummary.self).rows
            #expect(rows.map(\.environment) == [.production, .sandbox, .xcode])
            let production = try #require(rows.first)
            #expect(production.day == "2025-11-24" && production.productId == "coins" && production.currency == "USD")
            #expect(production.transactions == 2 && production.units == 3 && production.amount == "1.98")
            #expect(production.refunds == 1 && production.refundedAmount == "0.99")
            #expect(rows[1].units == 5 && rows[2].units == 7 && rows[1].refunds == 0)
            let onlyProduction = try expect(try await api.send(.get, "/v1/apps/\(world.app)/transactions/summary?environment=Production",
                                                               key: world.keys.developer), .ok,
                                            as: Components.Schemas.TransactionSummary.self).rows
            #expect(onlyProduction.count == 1 && onlyProduction[0].units == 3)
            let outside = try expect(try await api.send(.get, "/v1/apps/\(world.app)/transactions/summary?since=2025-11-25T00:00:00Z",
                                                        key: world.keys.developer), .ok,
                                     as: Components.Schemas.TransactionSummary.self).rows
            #expect(outside.isEmpty)
        }
    }

    @Test("listings: filters, newest or oldest first, keyset pages; one transaction with every source")
    func listings() async throws {
        let fixture = try await APIFixture.forSuite(Self.suite)
        try await fixture.purchases { api in
            let world = try await PurchaseWorld.make(api, fixture: fixture, app: "com.ledger.lists")
            let start = Date(timeIntervalSince1970: 1_760_000_000)
            let account = PurchaseWorld.account()
            var ids: [String] = []
            for index in 0..<7 {
                let transaction = world.transaction(index % 2 == 0 ? "coins" : "premium",
                                                    type: index % 2 == 0 ? .consumable : .nonConsumable,
                                                    purchased: start.addingTimeInterval(Double(index) * Self.day))
                ids.append(transaction.transactionId!)
                _ = try expect(try await world.submit(api, try world.signed(transaction), account: index < 3 ? account : nil),
                               .ok, as: Components.Schemas.PurchaseSubmission.self)
            }
            func all(_ query: String) async throws -> [String] {
                var found: [String] = []
                var cursor: String?
                repeat {
                    let page = try expect(try await api.send(.get, "/v1/apps/\(world.app)/transactions?limit=3\(query)"
                                                             + (cursor.map { "&cursor=\($0)" } ?? ""), key: world.keys.auditor),
                                          .ok, as: Components.Schemas.LedgerTransactionPage.self)
                    found += page.items.map(\.transactionId)
                    cursor = page.nextCursor
                } while cursor != nil
                return found
            }
            #expect(try await all("") == ids.reversed())
            #expect(try await all("&order=oldest") == ids)
            #expect(try await all("&productId=premium") == [ids[5], ids[3], ids[1]])
            #expect(try await all("&accountToken=\(account.uppercased())") == [ids[2], ids[1], ids[0]])
            #expect(try await all("&environment=Production").isEmpty)
            #expect(try await all("&since=\(Self.rfc3339(start.addingTimeInterval(2 * Self.day)))&until=\(Self.rfc3339(start.addingTimeInterval(4 * Self.day)))")
                    == [ids[3], ids[2]])
            _ = try problem(try await api.send(.get, "/v1/apps/\(world.app)/transactions?accountToken=alice",
                                               key: world.keys.auditor), .unprocessableContent, "validation-failed")
            _ = try problem(try await api.send(.get, "/v1/apps/\(world.app)/transactions?cursor=bm9wZQ",
                                               key: world.keys.auditor), .unprocessableContent, "validation-failed")
            // One transaction, with the submission that brought it.
            let one = try expect(try await api.send(.get, "/v1/apps/\(world.app)/transactions/\(ids[0])", key: world.keys.developer),
                                 .ok, as: Components.Schemas.LedgerTransaction.self)
            #expect(one.accountToken == account && one.sources?.count == 1 && one.sources?.first?.recorded == true)
            _ = try problem(try await api.send(.get, "/v1/apps/\(world.app)/transactions/\(ids[0])?environment=Production",
                                               key: world.keys.developer), .notFound, "not-found")
            // A client key reads no ledger; a reviewer neither.
            _ = try problem(try await api.send(.get, "/v1/apps/\(world.app)/transactions", key: world.client), .forbidden, "forbidden")
            _ = try problem(try await api.send(.get, "/v1/apps/\(world.app)/transactions", key: world.keys.reviewer),
                            .forbidden, "forbidden")
        }
    }

    @Test("exports stream every matching transaction as CSV or NDJSON")
    func exports() async throws {
        let fixture = try await APIFixture.forSuite(Self.suite)
        try await fixture.purchases { api in
            let world = try await PurchaseWorld.make(api, fixture: fixture, app: "com.ledger.exports")
            for index in 0..<5 {
                var transaction = world.transaction(purchased: Date(timeIntervalSince1970: 1_760_000_000 + Double(index)))
                transaction.storefront = index == 0 ? "=cmd()" : "USA"
                _ = try expect(try await world.submit(api, try world.signed(transaction)), .ok,
                               as: Components.Schemas.PurchaseSubmission.self)
            }
            let csv = try await api.send(.get, "/v1/apps/\(world.app)/transactions?order=oldest", key: world.keys.auditor,
                                         headers: [.accept: "text/csv"])
            #expect(csv.status == .ok && csv.headers[.contentType]?.hasPrefix("text/csv") == true)
            let lines = String(buffer: csv.body).split(separator: "\r\n")
            #expect(lines.count == 6 && lines[0].hasPrefix("\u{FEFF}transactionId,environment,"))
            #expect(lines[1].contains(",'=cmd(),") && lines[1].contains(",USD,0.99,"))
            let ndjson = try await api.send(.get, "/v1/apps/\(world.app)/transactions", key: world.keys.auditor,
                                            headers: [.accept: "application/x-ndjson"])
            let records = String(buffer: ndjson.body).split(separator: "\n").map {
                try? JSONDecoder().decode([String: JSONValue].self, from: Data($0.utf8))
            }
            #expect(records.count == 5 && records.allSatisfy { $0?["environment"] == .string("Sandbox") })
        }
    }

    static func rfc3339(_ date: Date) -> String { date.formatted(Date.ISO8601FormatStyle()) }
}
