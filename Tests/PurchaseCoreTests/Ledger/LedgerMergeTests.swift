import CatalogCore
import Foundation
import PurchaseCore
import Testing

/// The ledger's merge rule: a later source adds facts, never a second credit.
@Suite("Ledger merge rule")
struct LedgerMergeTests {
    static let alice = "3f2504e0-4f89-11d3-9a0c-0305e82c3301"
    static let bob = "9a0c0305-e82c-3301-3f25-04e04f8911d3"
    static let day = Date(timeIntervalSince1970: 1_760_000_000)

    static func facts(_ change: (inout TransactionFacts) -> Void = { _ in }) -> TransactionFacts {
        var facts = TransactionFacts(environment: .production, transactionId: "2000000001", productId: "coins.100",
                                     appleType: "Consumable", applePurchaseType: .consumable, quantity: 2,
                                     purchaseDate: day, price: 1_990, currency: "USD")
        change(&facts)
        return facts
    }

    static func recorded(_ facts: TransactionFacts = facts(), account: String = alice,
                         catalogType: PurchaseType? = .consumable) -> LedgerTransaction {
        LedgerTransaction.recording(facts, in: "com.example.app", account: account, inheritedAccount: nil,
                                    catalogType: catalogType, at: day)
    }

    @Test("a new transaction is credited to Apple's appAccountToken, else the account, else its original's")
    func credit() {
        #expect(Self.recorded().accountToken == Self.alice)
        #expect(Self.recorded(Self.facts { $0.appAccountToken = Self.bob }).accountToken == Self.bob)
        let renewal = LedgerTransaction.recording(Self.facts(), in: "com.example.app", account: "",
                                                  inheritedAccount: Self.bob, catalogType: .consumable, at: Self.day)
        #expect(renewal.accountToken == Self.bob)
        let nobody = LedgerTransaction.recording(Self.facts(), in: "com.example.app", account: "",
                                                 inheritedAccount: nil, catalogType: .consumable, at: Self.day)
        #expect(nobody.accountToken == "")
    }

    @Test("another account bringing the same transaction is never credited")
    func neverTwice() {
        let first = Self.recorded()
        let (merged, outcome) = first.merging(Self.facts(), account: Self.bob, at: Self.day)
        #expect(outcome == .unchanged && merged == first)
        #expect(merged.isCredited(to: Self.alice) && !merged.isCredited(to: Self.bob))
        // An uncredited transaction (a notification came first) is credited to the first account that brings it.
        let notified = Self.recorded(account: "")
        let (claimed, claim) = notified.merging(Self.facts(), account: Self.bob, at: Self.day)
        #expect(claim == .updated && claimed.accountToken == Self.bob && claimed.version == 2)
    }

    @Test("a later source adds facts: expiry only later, a refund once, a price when missing; identity stays")
    func addsFacts() {
        let later = Self.day.addingTimeInterval(86_400)
        let first = Self.recorded(Self.facts { $0.expiresDate = later; $0.price = nil; $0.currency = nil })
        let (extended, outcome) = first.merging(Self.facts {
            $0.expiresDate = later.addingTimeInterval(86_400); $0.quantity = 9; $0.productId = "other"
            $0.purchaseDate = later
        }, account: Self.alice, at: later)
        #expect(outcome == .updated && extended.expiresDate == later.addingTimeInterval(86_400))
        #expect(extended.quantity == 2 && extended.productId == "coins.100" && extended.purchaseDate == Self.day)
        #expect(extended.price == 1_990 && extended.currency == "USD" && extended.updatedAt == later)
        let (stale, staleOutcome) = extended.merging(Self.facts { $0.expiresDate = later }, account: Self.alice, at: later)
        #expect(staleOutcome == .unchanged && stale.expiresDate == later.addingTimeInterval(86_400))
        let (refunded, refund) = extended.merging(Self.facts { $0.revocationDate = later; $0.revocationReason = 1 },
                                                  account: "", at: later)
        #expect(refund == .updated && refunded.isRevoked && refunded.revocationReason == 1 && refunded.version == 3)
        let (again, repeated) = refunded.merging(Self.facts { $0.revocationDate = Self.day; $0.revocationReason = 0 },
                                                 account: "", at: later)
        #expect(repeated == .unchanged && again.revocationDate == later)
        let (reinstated, reversal) = refunded.merging(Self.facts { $0.refundReversed = true }, account: "", at: later)
        #expect(reversal == .updated && !reinstated.isRevoked && reinstated.revocationReason == nil)
    }

    @Test("catalogMismatch: not in the catalog, or a type that disagrees; a receipt's unknown type is no mismatch")
    func mismatch() {
        #expect(!Self.recorded().catalogMismatch)
        #expect(Self.recorded(catalogType: nil).catalogMismatch)
        #expect(Self.recorded(catalogType: .nonConsumable).catalogMismatch)
        let fromReceipt = Self.recorded(Self.facts { $0.appleType = nil; $0.applePurchaseType = nil },
                                        catalogType: .nonConsumable)
        #expect(!fromReceipt.catalogMismatch)
        // The type learnt later decides.
        let (typed, outcome) = fromReceipt.merging(Self.facts(), account: Self.alice, at: Self.day)
        #expect(outcome == .updated && typed.catalogMismatch && typed.appleType == "Consumable")
    }

    @Test("facts the ledger cannot hold are left out; missing identifiers are refused")
    func validation() throws {
        let cleaned = try Self.facts {
            $0.currency = "usd"; $0.storefront = String(repeating: "s", count: 101); $0.quantity = -1
            $0.appAccountToken = "not a token"; $0.purchaseDate = Date(timeIntervalSince1970: 1.2345678)
        }.validated()
        #expect(cleaned.price == nil && cleaned.currency == nil && cleaned.storefront == nil && cleaned.quantity == 0)
        #expect(cleaned.appAccountToken == nil && cleaned.purchaseDate == Date(timeIntervalSince1970: 1.234))
        #expect(try Self.facts { $0.appAccountToken = Self.alice.uppercased() }.validated().appAccountToken == Self.alice)
        #expect(throws: TransactionFacts.Refusal.missing("transactionId")) {
            try Self.facts { $0.transactionId = "" }.validated()
        }
        #expect(throws: TransactionFacts.Refusal.tooLong("productId", limit: 200)) {
            try Self.facts { $0.productId = String(repeating: "p", count: 201) }.validated()
        }
    }
}
