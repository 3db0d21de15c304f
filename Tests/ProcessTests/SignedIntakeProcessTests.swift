import AppStoreStandIn
import CatalogStore
import CatalogTestSupport
import Foundation
import PurchaseCore
import Testing

/// Signed transactions sent to real server processes at once: the same proof from many clients is one
/// submission and one ledger row, however the writes of the two processes' batches interleave.
@Suite("Signed transactions across processes")
struct SignedIntakeProcessTests {
    @Test("1,000 concurrent submissions of one signed transaction to two servers: every answer 200, one submission, one ledger row")
    func thousandSubmissionsOfOneTransaction() async throws {
        let url = try await TestDatabase.forSuite("signed_intake_thousand")
        let service = try await TestDatabase.serviceURL(for: url)
        let bundle = "com.signed.thousand"
        let key = try await TestPurchases.app(bundle, in: url)
        let chain = try TestChain.generate()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("chain-\(UUID().uuidString)")
        try chain.write(to: directory)
        defer { try? FileManager.default.removeItem(at: directory) }
        // One account sends them all: its rate limit (tested in PurchaseAPITests) is lifted.
        let environment = [
            "APPSTORE_ROOT_CERTIFICATES": directory.appendingPathComponent("root.pem").path,
            "RATE_LIMIT_ACCOUNT_PER_SECOND": "1000000", "RATE_LIMIT_ACCOUNT_BURST": "1000000",
        ]
        let servers = [
            try await ServerProcess(databaseURL: service, migrationURL: url, environment: environment),
            try await ServerProcess(databaseURL: service, migrationURL: url, environment: environment),
        ]
        let jws = try StandInSigner(chain: chain).sign(AppStoreTransaction.standIn(
            bundleId: bundle, productId: "coins", type: .consumable))
        let body = #"{"accountToken":"\#(TestPurchases.account)","signedTransaction":"\#(jws)"}"#
        // 500 at once to each server, each request on a connection of its own.
        let answers = try await ConcurrentPosts.send(1_000, to: servers, path: "/v1/apps/\(bundle)/purchases",
                                                     key: key.token) { _ in body }
        let ids = answers.map { answer in
            (try? JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any])?["id"] as? String
        }
        let statuses = Dictionary(grouping: answers, by: \.status).mapValues(\.count)
        #expect(statuses == [200: 1_000], "\(statuses)")
        #expect(Set(ids.compactMap { $0 }).count == 1 && !ids.contains(nil))
        #expect(try await TestPurchases.count(
            "SELECT count(*)::int FROM purchase_submissions WHERE app = '\(bundle)'", in: url) == 1)
        #expect(try await TestPurchases.count(
            "SELECT count(*)::int FROM ledger_transactions WHERE app = '\(bundle)'", in: url) == 1)
        #expect(try await TestPurchases.count(
            "SELECT count(*)::int FROM history_events WHERE app = '\(bundle)' AND kind = 'transaction_recorded'",
            in: url) == 1)
        for server in servers {
            server.send(SIGTERM)
            #expect(try await server.waitForExit() == 0)
        }
        print("signed intake: 1,000 concurrent submissions of one transaction to two servers: \(statuses), one submission")
    }
}
