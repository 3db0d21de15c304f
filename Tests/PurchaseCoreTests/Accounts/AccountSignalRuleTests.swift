import CatalogCore
import Foundation
import PurchaseCore
import Testing

/// Which signals a merge into the ledger raises.
@Suite("Account signal rule")
struct AccountSignalRuleTests {
    static let alice = "3f2504e0-4f89-11d3-9a0c-0305e82c3301"
    static let bob = "9a0c0305-e82c-3301-3f25-04e04f8911d3"
    static let day = Date(timeIntervalSince1970: 1_760_000_000)

    static func facts(_ change: (inout TransactionFacts) -> Void = { _ in }) -> TransactionFacts {
        var facts = TransactionFacts(environment: .production, transactionId: "2000000001", productId: "premium",
                                     appleType: "Non-Consumable", applePurchaseType: .nonConsumable,
                                     purchaseDate: day, appTransactionId: "704")
        change(&facts)
        return facts
    }

    static func record(_ facts: TransactionFacts, for account: String) -> LedgerTransaction {
        LedgerTransaction.recording(facts, in: "com.example.app", account: account, inheritedAccount: nil,
                                    catalogType: .nonConsumable, at: day)
    }

    @Test("another account bringing a credited transaction raises sharedTransaction naming both")
    func shared() {
        let row = Self.record(Self.facts(), for: Self.alice)
        let (after, _) = row.merging(Self.facts(), account: Self.bob, at: Self.day)
        let raised = AccountSignalRule.raised(before: row, after: after, account: Self.bob, appleAccount: nil,
                                              recentStoreAccounts: ["704"], limit: 3)
        #expect(raised == [.sharedTransaction(credited: Self.alice, broughtFor: Self.bob)])
        // The same account again, or nobody: nothing.
        #expect(AccountSignalRule.raised(before: row, after: row, account: Self.alice, appleAccount: nil,
                                         recentStoreAccounts: ["704"], limit: 3).isEmpty)
        #expect(AccountSignalRule.raised(before: row, after: row, account: "", appleAccount: nil,
                                         recentStoreAccounts: ["704"], limit: 3).isEmpty)
    }

    @Test("Apple's appAccountToken credits its account; the submitter, another account, is named")
    func appleToken() {
        let facts = Self.facts { $0.appAccountToken = Self.alice }
        let row = Self.record(facts, for: Self.bob)
        #expect(row.accountToken == Self.alice)
        #expect(AccountSignalRule.raised(before: nil, after: row, account: Self.bob, appleAccount: Self.alice,
                                         recentStoreAccounts: [], limit: 3)
                    == [.sharedTransaction(credited: Self.alice, broughtFor: Self.bob)])
    }

    @Test("the two forms of one account are one account")
    func twoForms() throws {
        let tokens = AccountTokens.derive(for: try AccountName("user-42"),
                                          under: AccountTokenSecret(bytes: Array(repeating: 9, count: 32))!)
        let facts = Self.facts { $0.appAccountToken = tokens.appAccountTokenText }
        let row = Self.record(facts, for: tokens.applicationUsername)
        #expect(AccountSignalRule.raised(before: nil, after: row, account: tokens.applicationUsername,
                                         appleAccount: tokens.appAccountTokenText, recentStoreAccounts: [],
                                         limit: 3).isEmpty)
    }

    @Test("manyStoreAccounts fires at N + 1 distinct App Store accounts, not at N, and not for one seen")
    func manyStoreAccounts() {
        let row = Self.record(Self.facts { $0.appTransactionId = "4" }, for: Self.alice)
        #expect(AccountSignalRule.raised(before: nil, after: row, account: Self.alice, appleAccount: nil,
                                         recentStoreAccounts: ["1", "2"], limit: 3).isEmpty)
        #expect(AccountSignalRule.raised(before: nil, after: row, account: Self.alice, appleAccount: nil,
                                         recentStoreAccounts: ["1", "2", "3"], limit: 3)
                    == [.manyStoreAccounts(account: Self.alice, storeAccounts: ["1", "2", "3", "4"])])
        #expect(AccountSignalRule.raised(before: nil, after: row, account: Self.alice, appleAccount: nil,
                                         recentStoreAccounts: ["1", "2", "3", "4"], limit: 3).isEmpty)
        // Known and already counted: a later source adds nothing new.
        #expect(AccountSignalRule.raised(before: row, after: row, account: Self.alice, appleAccount: nil,
                                         recentStoreAccounts: ["1", "2", "3"], limit: 3).isEmpty)
        // Without an account, no one's store accounts grow.
        let nobody = Self.record(Self.facts { $0.appTransactionId = "4" }, for: "")
        #expect(AccountSignalRule.raised(before: nil, after: nobody, account: "", appleAccount: nil,
                                         recentStoreAccounts: ["1", "2", "3"], limit: 3).isEmpty)
    }

    @Test("a refund is raised once, when the ledger is marked")
    func refund() {
        let row = Self.record(Self.facts(), for: Self.alice)
        let refund = Self.facts { $0.revocationDate = Self.day.addingTimeInterval(3600); $0.revocationReason = 1 }
        let (refunded, outcome) = row.merging(refund, account: "", at: Self.day)
        #expect(outcome == .updated)
        #expect(AccountSignalRule.raised(before: row, after: refunded, account: "", appleAccount: nil,
                                         recentStoreAccounts: ["704"], limit: 3) == [.refund(account: Self.alice)])
        #expect(AccountSignalRule.raised(before: refunded, after: refunded, account: "", appleAccount: nil,
                                         recentStoreAccounts: ["704"], limit: 3).isEmpty)
        #expect(AccountSignalRule.raised(before: nil, after: Self.record(refund, for: ""), account: "",
                                         appleAccount: nil, recentStoreAccounts: [], limit: 3) == [.refund(account: "")])
    }
}
