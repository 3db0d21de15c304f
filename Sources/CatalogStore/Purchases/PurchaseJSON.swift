import CatalogCore
import Foundation
import PurchaseCore

/// JSON for the purchase functions' parameters, written member by member (``JSONObjectWriter``): camelCase names,
/// instants in RFC 3339 to the millisecond (what Apple's dates hold), which PostgreSQL reads as timestamptz.
enum PurchaseJSON {
    /// A transaction's facts, as the functions read them (`facts ->> 'transactionId'`, …).
    static func facts(_ facts: TransactionFacts) -> JSONObjectWriter {
        var object = JSONObjectWriter()
        object.add("environment", facts.environment.rawValue)
        object.add("transactionId", facts.transactionId)
        object.add("originalTransactionId", facts.originalTransactionId)
        object.add("productId", facts.productId)
        object.add("appleType", facts.appleType)
        object.add("applePurchaseType", facts.applePurchaseType?.rawValue)
        object.add("quantity", facts.quantity)
        object.add("purchaseDate", RFC3339Text.milliseconds(facts.purchaseDate))
        object.add("originalPurchaseDate", facts.originalPurchaseDate.map(RFC3339Text.milliseconds))
        object.add("expiresDate", facts.expiresDate.map(RFC3339Text.milliseconds))
        object.add("revocationDate", facts.revocationDate.map(RFC3339Text.milliseconds))
        object.add("revocationReason", facts.revocationReason)
        object.add("refundReversed", facts.refundReversed)
        object.add("price", facts.price)
        object.add("currency", facts.currency)
        object.add("storefront", facts.storefront)
        object.add("appTransactionId", facts.appTransactionId)
        object.add("inAppOwnershipType", facts.inAppOwnershipType)
        object.add("webOrderLineItemId", facts.webOrderLineItemId)
        object.add("transactionReason", facts.transactionReason)
        object.add("appAccountToken", facts.appAccountToken)
        return object
    }

    /// Who acted, as a history event's `actor`.
    static func actor(_ actor: Actor) -> JSONObjectWriter {
        var object = JSONObjectWriter()
        object.add("keyId", actor.keyID?.uuidString)
        object.add("name", actor.name)
        object.add("role", actor.role?.rawValue)
        return object
    }
}
