import AppStoreStandIn
import CatalogAPI
import CatalogCore
import CatalogTestSupport
import Foundation
import HTTPTypes
import HummingbirdTesting
import PurchaseCore
import Testing

/// App Store Server Notifications V2 at `POST …/notifications/app-store`: public, verified like a signed
/// transaction, recorded once, merged into the ledger.
@Suite("App Store notifications API")
struct NotificationAPITests {
    static let suite = "notifications_api"

    static func post(_ api: API, _ app: String, _ notification: AppStoreNotification) async throws -> TestResponse {
        try await api.send(.post, "/v1/apps/\(app)/notifications/app-store",
                           json: ["signedPayload": try PurchaseWorld.signer.sign(notification)])
    }

    @Test("a renewal adds a transaction credited to the original's account; a refund marks; a replay is a no-op")
    func renewalsAndRefunds() async throws {
        let fixture = try await APIFixture.forSuite(Self.suite)
        try await fixture.purchases { api in
            let world = try await PurchaseWorld.make(api, fixture: fixture, app: "com.notify.renewals")
            try await api.createProduct(world.app, "monthly", type: .autoRenewableSubscription, key: world.keys.admin)
            let account = PurchaseWorld.account()
            let start = Date(timeIntervalSince1970: 1_760_000_000)
            let first = world.transaction("monthly", type: .autoRenewableSubscription, id: "3000000000000001", purchased: start)
            _ = try expect(try await world.submit(api, try world.signed(first), account: account), .ok,
                           as: Components.Schemas.PurchaseSubmission.self)
            let renewal = world.transaction("monthly", type: .autoRenewableSubscription, id: "3000000000000002",
                                            original: "3000000000000001", purchased: start.addingTimeInterval(30 * 86_400))
            let renewed = try PurchaseWorld.signer.notification(type: .didRenew, about: renewal)
            let receipt = try expect(try await Self.post(api, world.app, renewed), .ok,
                                     as: Components.Schemas.AppStoreNotificationReceipt.self)
            #expect(!receipt.duplicate && receipt.outcome == .recorded && receipt.notificationType == "DID_RENEW")
            #expect(receipt.notificationUUID == renewed.notificationUUID && receipt.environment == .sandbox)
            let replay = try expect(try await Self.post(api, world.app, renewed), .ok,
                                    as: Components.Schemas.AppStoreNotificationReceipt.self)
            #expect(replay.duplicate && replay.outcome == nil)
            let chain = try await world.ledger(api, query: "&originalTransactionId=3000000000000001&order=oldest")
            #expect(chain.map(\.transactionId) == ["3000000000000001", "3000000000000002"])
            #expect(chain.allSatisfy { $0.accountToken == account })
            #expect(chain[1].expiresDate.map { $0 > chain[0].expiresDate! } == true)
            // A refund of the renewal marks it; the row stays.
            var refunded = renewal
            refunded.revocationDate = AppStoreDate(Date())
            refunded.revocationReason = .other
            let refund = try PurchaseWorld.signer.notification(type: .refund, about: refunded)
            let marked = try expect(try await Self.post(api, world.app, refund), .ok,
                                    as: Components.Schemas.AppStoreNotificationReceipt.self)
            #expect(marked.outcome == .updated)
            let row = try expect(try await api.send(.get, "/v1/apps/\(world.app)/transactions/3000000000000002",
                                                    key: world.keys.auditor), .ok,
                                 as: Components.Schemas.LedgerTransaction.self)
            #expect(row.revocationDate != nil && row.revocationReason == 0 && row.version == 2)
            #expect(row.sources?.map(\.kind) == [.notification, .notification])
            // Other types are recorded only; the chain verifies with the App Store's events in it.
            var test = AppStoreNotification()
            test.notificationType = .test
            test.notificationUUID = UUID().uuidString.lowercased()
            test.signedDate = AppStoreDate(Date())
            var data = NotificationData()
            data.bundleId = world.app
            data.environment = "Sandbox"
            test.data = data
            let recordedOnly = try expect(try await Self.post(api, world.app, test), .ok,
                                          as: Components.Schemas.AppStoreNotificationReceipt.self)
            #expect(!recordedOnly.duplicate && recordedOnly.outcome == nil && recordedOnly.transactionId == nil)
            let verification = try expect(try await api.send(.get, "/v1/history/verify?app=\(world.app)", key: world.keys.auditor),
                                          .ok, as: Components.Schemas.HistoryVerification.self)
            #expect(verification.verified)
            let events = try expect(try await api.send(.get, "/v1/history?app=\(world.app)&kind=transaction_updated",
                                                       key: world.keys.auditor), .ok,
                                    as: Components.Schemas.HistoryPage.self).items
            #expect(events.count == 1 && events.first?.actor.name == "App Store" && events.first?.actor.role == nil)
        }
    }

    @Test("refused: another app's, an untrusted chain, no app; nothing recorded")
    func refusals() async throws {
        let fixture = try await APIFixture.forSuite(Self.suite)
        try await fixture.purchases { api in
            let world = try await PurchaseWorld.make(api, fixture: fixture, app: "com.notify.refused")
            let otherApp = try PurchaseWorld.signer.notification(
                type: .didRenew, about: AppStoreTransaction.standIn(bundleId: "com.notify.other", productId: "coins",
                                                                     type: .consumable))
            let refusal = try problem(try await Self.post(api, world.app, otherApp), .unprocessableContent, "invalid-proof")
            #expect(refusal.reason == "bundle-mismatch")
            let stranger = StandInSigner(chain: try TestChain.generate())
            let forged = try stranger.notification(type: .refund, about: world.transaction())
            let untrusted = try problem(try await api.send(.post, "/v1/apps/\(world.app)/notifications/app-store",
                                                           json: ["signedPayload": try stranger.sign(forged)]),
                                        .unprocessableContent, "invalid-proof")
            #expect(untrusted.reason == "untrusted-chain")
            _ = try problem(try await Self.post(api, "com.notify.none",
                                                try PurchaseWorld.signer.notification(type: .test, about: world.transaction())),
                            .notFound, "not-found")
            _ = try problem(try await api.send(.post, "/v1/apps/\(world.app)/notifications/app-store",
                                               body: #"{"signedPayload":"\#(String(repeating: "a", count: 65_001))"}"#),
                            .unprocessableContent, "validation-failed")
            _ = try problem(try await api.send(.post, "/v1/apps/\(world.app)/notifications/app-store",
                                               body: #"{"signedPayload":"\#(String(repeating: "a", count: 70_000))"}"#),
                            .contentTooLarge, "payload-too-large")
            #expect(try await world.ledger(api).isEmpty)
        }
    }
}
