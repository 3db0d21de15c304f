import Foundation

extension VerifiedReceipt {
    /// What the ledger records of a verified receipt: each transaction's facts in the receipt's environment, and
    /// a sentence for each transaction it cannot hold, after Apple's own problems.
    ///
    /// A receipt says nothing of Apple's product type, price or storefront; those stay unknown until a signed
    /// source brings them. A transaction without a purchase date is recorded at its original purchase date (a
    /// restore's); one with neither, or with identifiers the ledger cannot hold, is left out and named.
    public func ledgerFacts() -> (facts: [TransactionFacts], problems: [String]) {
        var facts: [TransactionFacts] = []
        var problems = self.problems
        for transaction in transactions {
            switch transaction.ledgerFacts(in: environment) {
            case .success(let fact): facts.append(fact)
            case .failure(let refusal):
                problems.append("Transaction \(transaction.transactionId.prefix(TransactionFacts.identifierLimit)) "
                                + "is not recorded: \(refusal).")
            }
        }
        return (facts, problems)
    }
}

extension ReceiptTransaction {
    /// This transaction's facts as the ledger holds them, in `environment`.
    public func ledgerFacts(in environment: AppStoreEnvironment) -> Result<TransactionFacts, TransactionFacts.Refusal> {
        guard let purchased = purchaseDate ?? originalPurchaseDate else { return .failure(.missing("purchase date")) }
        let facts = TransactionFacts(
            environment: environment, transactionId: transactionId, originalTransactionId: originalTransactionId,
            productId: productId, quantity: quantity, purchaseDate: purchased,
            originalPurchaseDate: originalPurchaseDate, expiresDate: expiresDate, revocationDate: cancellationDate,
            revocationReason: cancellationDate == nil ? nil : cancellationReason.flatMap { Int($0) },
            inAppOwnershipType: inAppOwnershipType, webOrderLineItemId: webOrderLineItemId,
            appAccountToken: appAccountToken)
        return Result { () throws(TransactionFacts.Refusal) in try facts.validated() }
    }
}
