import CatalogAPI
import CatalogCore

/// A submission's answer as the generated layer writes it (compact, keys sorted, dates RFC 3339 to the
/// millisecond), written member by member without `Encodable`, for the intake's fast path
/// (``PurchaseIntakeMiddleware``): `JSONEncoder`'s containers cost a signed transaction's answer more than its text
/// (docs/performance.md, "The intake without the generated layer"). The members are written in the order
/// `sortedKeys` gives them, code unit by code unit; a test compares the bytes with `JSONEncoder`'s for values with
/// every member present and absent.
enum PurchaseSubmissionJSON {
    static func utf8(_ submission: Components.Schemas.PurchaseSubmission) -> [UInt8] {
        object(submission).utf8
    }

    static func object(_ submission: Components.Schemas.PurchaseSubmission) -> JSONObjectWriter {
        var object = JSONObjectWriter()
        object.add("accountToken", submission.accountToken)
        object.add("appleStatus", submission.appleStatus)
        object.add("attempts", submission.attempts)
        object.add("createdAt", submission.createdAt)
        object.add("environment", submission.environment?.rawValue)
        object.add("finishedAt", submission.finishedAt)
        object.add("id", submission.id)
        object.add("kind", submission.kind.rawValue)
        object.add("nextAttemptAt", submission.nextAttemptAt)
        object.add("problems", strings: submission.problems)
        object.add("status", submission.status.rawValue)
        object.add("transactions", submission.transactions.map(transaction))
        object.add("updatedAt", submission.updatedAt)
        return object
    }

    static func transaction(_ transaction: Components.Schemas.LedgerTransaction) -> JSONObjectWriter {
        var object = JSONObjectWriter()
        object.add("accountToken", transaction.accountToken)
        object.add("alreadyRecorded", transaction.alreadyRecorded)
        object.add("appTransactionId", transaction.appTransactionId)
        object.add("appleType", transaction.appleType)
        object.add("catalogMismatch", transaction.catalogMismatch)
        object.add("catalogType", transaction.catalogType?.rawValue)
        object.add("createdAt", transaction.createdAt)
        object.add("credited", transaction.credited)
        object.add("environment", transaction.environment.rawValue)
        object.add("expiresDate", transaction.expiresDate)
        object.add("inAppOwnershipType", transaction.inAppOwnershipType)
        object.add("originalPurchaseDate", transaction.originalPurchaseDate)
        object.add("originalTransactionId", transaction.originalTransactionId)
        object.add("price", transaction.price.map(price))
        object.add("productId", transaction.productId)
        object.add("purchaseDate", transaction.purchaseDate)
        object.add("quantity", transaction.quantity)
        object.add("revocationDate", transaction.revocationDate)
        object.add("revocationReason", transaction.revocationReason)
        object.add("sources", transaction.sources?.map(source))
        object.add("storefront", transaction.storefront)
        object.add("transactionId", transaction.transactionId)
        object.add("transactionReason", transaction.transactionReason)
        object.add("updatedAt", transaction.updatedAt)
        object.add("version", transaction.version)
        object.add("webOrderLineItemId", transaction.webOrderLineItemId)
        return object
    }

    private static func price(_ price: Components.Schemas.Price) -> JSONObjectWriter {
        var object = JSONObjectWriter()
        object.add("amount", price.amount)
        object.add("currency", price.currency)
        return object
    }

    private static func source(_ source: Components.Schemas.LedgerSource) -> JSONObjectWriter {
        var object = JSONObjectWriter()
        object.add("accountToken", source.accountToken)
        object.add("at", source.at)
        object.add("id", source.id)
        object.add("kind", source.kind.rawValue)
        object.add("recorded", source.recorded)
        return object
    }
}
