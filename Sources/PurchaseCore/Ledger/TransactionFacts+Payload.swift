import CatalogCore
import Foundation

extension TransactionFacts {
    /// The facts of a verified signed transaction (StoreKit 2's, or a notification's `signedTransactionInfo`), in
    /// the environment the verifier found. `refundReversed`: the notification that carries it says a refund was
    /// reversed (REFUND_REVERSED). Refused when it lacks what the ledger cannot do without: its identifiers and
    /// its purchase date.
    public init(_ verified: Verified<AppStoreTransaction>, refundReversed: Bool = false) throws(Refusal) {
        let payload = verified.payload
        guard let transactionId = payload.transactionId, !transactionId.isEmpty else { throw .missing("transactionId") }
        guard let productId = payload.productId, !productId.isEmpty else { throw .missing("productId") }
        guard let purchaseDate = payload.purchaseDate else { throw .missing("purchaseDate") }
        self.init(
            environment: verified.environment, transactionId: transactionId,
            originalTransactionId: payload.originalTransactionId.flatMap { $0.isEmpty ? nil : $0 },
            productId: productId, appleType: payload.type?.rawValue, applePurchaseType: payload.type?.purchaseType,
            quantity: payload.quantity ?? 1, purchaseDate: purchaseDate.date,
            originalPurchaseDate: payload.originalPurchaseDate?.date, expiresDate: payload.expiresDate?.date,
            revocationDate: payload.revocationDate?.date, revocationReason: payload.revocationReason?.rawValue,
            refundReversed: refundReversed, price: payload.price, currency: payload.currency,
            storefront: payload.storefront, appTransactionId: payload.appTransactionId,
            inAppOwnershipType: payload.inAppOwnershipType?.rawValue, webOrderLineItemId: payload.webOrderLineItemId,
            transactionReason: payload.transactionReason?.rawValue,
            appAccountToken: payload.appAccountToken?.lowercaseText)
        self = try validated()
    }
}

extension TransactionFacts {
    /// The facts of one transaction of a receipt the App Store verified in `environment`. A receipt does not
    /// say the product's type or price; its `cancellation_date` is a refund or a revocation. Refused when it
    /// lacks a purchase date (Apple always gives one).
    public init(_ transaction: ReceiptTransaction, environment: AppStoreEnvironment) throws(Refusal) {
        guard let purchaseDate = transaction.purchaseDate ?? transaction.originalPurchaseDate else {
            throw .missing("purchaseDate")
        }
        self.init(
            environment: environment, transactionId: transaction.transactionId,
            originalTransactionId: transaction.originalTransactionId, productId: transaction.productId,
            quantity: transaction.quantity, purchaseDate: purchaseDate,
            originalPurchaseDate: transaction.originalPurchaseDate, expiresDate: transaction.expiresDate,
            revocationDate: transaction.cancellationDate, revocationReason: transaction.cancellationReason.flatMap { Int($0) },
            inAppOwnershipType: transaction.inAppOwnershipType, webOrderLineItemId: transaction.webOrderLineItemId,
            appAccountToken: transaction.appAccountToken)
        self = try validated()
    }
}
