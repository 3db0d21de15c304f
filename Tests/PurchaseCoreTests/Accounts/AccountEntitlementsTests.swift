import CatalogCore
import Foundation
import PurchaseCore
import Testing

/// What an account owns, from the transactions credited to it.
@Suite("Account entitlements")
struct AccountEntitlementsTests {
    static let account = "3f2504e0-4f89-11d3-9a0c-0305e82c3301"
    static let now = Date(timeIntervalSince1970: 1_760_000_000)
    static let day: TimeInterval = 86_400

    static func transaction(_ id: String, _ product: String, type: PurchaseType?, appleType: String? = nil,
                            environment: AppStoreEnvironment = .production, original: String? = nil,
                            quantity: Int = 1, daysAgo: Double, expiresInDays: Double? = nil,
                            revokedDaysAgo: Double? = nil) -> LedgerTransaction {
        let facts = TransactionFacts(
            environment: environment, transactionId: id, originalTransactionId: original, productId: product,
            appleType: appleType, quantity: quantity, purchaseDate: now.addingTimeInterval(-daysAgo * day),
            expiresDate: expiresInDays.map { now.addingTimeInterval($0 * day) },
            revocationDate: revokedDaysAgo.map { now.addingTimeInterval(-$0 * day) },
            revocationReason: revokedDaysAgo == nil ? nil : 0)
        return LedgerTransaction.recording(facts, in: "com.example.app", account: account, inheritedAccount: nil,
                                           catalogType: type, at: now)
    }

    @Test("each type as the catalog says: owned, active until expiry, units summed, dated")
    func byType() {
        let entitlements = AccountEntitlements([
            Self.transaction("1", "premium", type: .nonConsumable, daysAgo: 10),
            Self.transaction("2", "premium", type: .nonConsumable, daysAgo: 5),          // a restore: still one
            Self.transaction("3", "coins.100", type: .consumable, quantity: 2, daysAgo: 3),
            Self.transaction("4", "coins.100", type: .consumable, quantity: 1, daysAgo: 1),
            Self.transaction("5", "pro.monthly", type: .autoRenewableSubscription, daysAgo: 40, expiresInDays: -10),
            Self.transaction("6", "pro.monthly", type: .autoRenewableSubscription, original: "5", daysAgo: 10,
                             expiresInDays: 20),
            Self.transaction("7", "season.pass", type: .nonRenewingSubscription, daysAgo: 2),
            Self.transaction("8", "old.monthly", type: .autoRenewableSubscription, daysAgo: 60, expiresInDays: -30),
        ], catalogTypes: [:], at: Self.now)
        #expect(entitlements.nonConsumables.map(\.transactionId) == ["1"])
        #expect(entitlements.consumables.map(\.units) == [3] && entitlements.consumables.map(\.transactions) == [2])
        #expect(entitlements.subscriptions.map(\.productId) == ["old.monthly", "pro.monthly"])
        #expect(entitlements.subscriptions.map(\.isActive) == [false, true])
        #expect(entitlements.subscriptions.map(\.latestTransactionId) == ["8", "6"])
        #expect(entitlements.subscriptions.last?.expiresDate == Self.now.addingTimeInterval(20 * Self.day))
        #expect(entitlements.nonRenewing.map(\.transactionId) == ["7"])
        #expect(entitlements.revoked.isEmpty && entitlements.unclassified.isEmpty)
    }

    @Test("a refund removes what it granted, and is listed")
    func refunds() {
        let entitlements = AccountEntitlements([
            Self.transaction("1", "premium", type: .nonConsumable, daysAgo: 10, revokedDaysAgo: 1),
            Self.transaction("3", "coins.100", type: .consumable, quantity: 2, daysAgo: 3),
            Self.transaction("4", "coins.100", type: .consumable, quantity: 5, daysAgo: 1, revokedDaysAgo: 0),
            Self.transaction("5", "pro.monthly", type: .autoRenewableSubscription, daysAgo: 40, expiresInDays: -10),
            Self.transaction("6", "pro.monthly", type: .autoRenewableSubscription, original: "5", daysAgo: 10,
                             expiresInDays: 20, revokedDaysAgo: 2),
        ], catalogTypes: [:], at: Self.now)
        #expect(entitlements.nonConsumables.isEmpty)
        #expect(entitlements.consumables.map(\.units) == [2])
        // The refunded renewal no longer extends: the subscription fell back to its lapsed expiry.
        #expect(entitlements.subscriptions.map(\.latestTransactionId) == ["5"])
        #expect(entitlements.subscriptions.map(\.isActive) == [false])
        #expect(Set(entitlements.revoked.map(\.transactionId)) == ["1", "4", "6"])
        #expect(entitlements.revoked.allSatisfy { $0.revocationDate != nil })
    }

    @Test("expiry decides activity at the moment asked")
    func expiry() {
        let subscription = [Self.transaction("5", "pro.monthly", type: .autoRenewableSubscription, daysAgo: 20,
                                             expiresInDays: 10)]
        #expect(AccountEntitlements(subscription, catalogTypes: [:], at: Self.now).subscriptions.first?.isActive == true)
        #expect(AccountEntitlements(subscription, catalogTypes: [:], at: Self.now.addingTimeInterval(10 * Self.day))
                    .subscriptions.first?.isActive == false)
    }

    @Test("the catalog's type now decides, then the type at recording, then Apple's; none is unclassified")
    func types() {
        let transactions = [
            Self.transaction("1", "later.product", type: nil, daysAgo: 1),                           // added later
            Self.transaction("2", "unknown", type: nil, appleType: "Non-Consumable", daysAgo: 1),
            Self.transaction("3", "mystery", type: nil, daysAgo: 1),
        ]
        let entitlements = AccountEntitlements(transactions, catalogTypes: ["later.product": .consumable], at: Self.now)
        #expect(entitlements.consumables.map(\.productId) == ["later.product"])
        #expect(entitlements.nonConsumables.map(\.productId) == ["unknown"])
        #expect(entitlements.unclassified.map(\.transactionId) == ["3"])
    }

    @Test("environments never mix: a Sandbox renewal does not extend Production")
    func environments() {
        let entitlements = AccountEntitlements([
            Self.transaction("5", "pro.monthly", type: .autoRenewableSubscription, daysAgo: 40, expiresInDays: -10),
            Self.transaction("5", "pro.monthly", type: .autoRenewableSubscription, environment: .sandbox, daysAgo: 1,
                             expiresInDays: 1),
            Self.transaction("9", "coins.100", type: .consumable, daysAgo: 1),
            Self.transaction("9", "coins.100", type: .consumable, environment: .sandbox, daysAgo: 1),
        ], catalogTypes: [:], at: Self.now)
        #expect(entitlements.subscriptions.map(\.environment) == [.production, .sandbox])
        #expect(entitlements.subscriptions.map(\.isActive) == [false, true])
        #expect(entitlements.consumables.map(\.units) == [1, 1])
    }
}
