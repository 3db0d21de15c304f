import Foundation
import PurchaseCore
import Testing

/// What the ledger records of a verified receipt: each transaction's facts in the receipt's environment; those it
/// cannot hold left out and named.
@Suite struct VerifiedReceiptLedgerTests {
    let bought = Date(timeIntervalSince1970: 1_760_000_000.5)
    let token = "3F2504E0-4F89-11D3-9A0C-0305E82C3301"

    @Test func everyFactAReceiptGivesIsKeptInTheReceiptsEnvironment() throws {
        let subscription = ReceiptTransaction(
            transactionId: "2000000002", originalTransactionId: "2000000001", productId: "pro.monthly", quantity: 1,
            purchaseDate: bought, originalPurchaseDate: bought.addingTimeInterval(-86_400),
            expiresDate: bought.addingTimeInterval(30 * 86_400), cancellationDate: bought.addingTimeInterval(60),
            cancellationReason: "1", webOrderLineItemId: "90000001", inAppOwnershipType: "PURCHASED",
            appAccountToken: token)
        let receipt = VerifiedReceipt(environment: .sandbox, bundleId: "com.example", transactions: [subscription])
        let (facts, problems) = receipt.ledgerFacts()
        #expect(problems.isEmpty)
        let fact = try #require(facts.first)
        #expect(fact.environment == .sandbox && fact.transactionId == "2000000002")
        #expect(fact.originalTransactionId == "2000000001" && fact.productId == "pro.monthly" && fact.quantity == 1)
        #expect(fact.purchaseDate == Date(timeIntervalSince1970: 1_760_000_000.5))
        #expect(fact.originalPurchaseDate == bought.addingTimeInterval(-86_400))
        #expect(fact.expiresDate == bought.addingTimeInterval(30 * 86_400))
        #expect(fact.revocationDate == bought.addingTimeInterval(60) && fact.revocationReason == 1)
        #expect(fact.webOrderLineItemId == "90000001" && fact.inAppOwnershipType == "PURCHASED")
        // Kept as the ledger compares tokens: lowercase.
        #expect(fact.appAccountToken == token.lowercased())
        // A receipt says nothing of these.
        #expect(fact.appleType == nil && fact.applePurchaseType == nil && fact.price == nil && fact.storefront == nil)
    }

    @Test func aConsumableWithQuantityAndNoCancellation() throws {
        let coins = ReceiptTransaction(transactionId: "1", productId: "coins", quantity: 5, purchaseDate: bought,
                                       cancellationReason: "0")
        let fact = try #require(VerifiedReceipt(environment: .production, bundleId: "b", transactions: [coins])
            .ledgerFacts().facts.first)
        #expect(fact.environment == .production && fact.quantity == 5 && fact.originalTransactionId == "1")
        // A reason without a cancellation date is no revocation.
        #expect(fact.revocationDate == nil && fact.revocationReason == nil)
    }

    @Test func aRestoreWithoutPurchaseDateIsRecordedAtItsOriginalPurchase() throws {
        let restored = ReceiptTransaction(transactionId: "3", productId: "lifetime", originalPurchaseDate: bought)
        let fact = try #require(VerifiedReceipt(environment: .production, bundleId: "b", transactions: [restored])
            .ledgerFacts().facts.first)
        #expect(fact.purchaseDate == Date(timeIntervalSince1970: 1_760_000_000.5))
    }

    @Test func whatTheLedgerCannotHoldIsLeftOutAndNamedAfterApplesProblems() {
        let undated = ReceiptTransaction(transactionId: "4", productId: "coins")
        let overlong = ReceiptTransaction(transactionId: String(repeating: "9", count: 201), productId: "coins",
                                          purchaseDate: bought)
        let fine = ReceiptTransaction(transactionId: "5", productId: "coins", purchaseDate: bought)
        let receipt = VerifiedReceipt(environment: .production, bundleId: "b", transactions: [undated, overlong, fine],
                                      problems: ["1 element of in_app could not be read."])
        let (facts, problems) = receipt.ledgerFacts()
        #expect(facts.map(\.transactionId) == ["5"])
        #expect(problems == [
            "1 element of in_app could not be read.",
            "Transaction 4 is not recorded: the transaction has no purchase date.",
            "Transaction \(String(repeating: "9", count: 200)) is not recorded: the transaction's transactionId is longer than 200 characters.",
        ])
    }
}
