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
        object.add("purchaseDate", instant(facts.purchaseDate))
        object.add("originalPurchaseDate", facts.originalPurchaseDate.map(instant))
        object.add("expiresDate", facts.expiresDate.map(instant))
        object.add("revocationDate", facts.revocationDate.map(instant))
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

    /// `date` as RFC 3339 UTC with milliseconds (rounded towards the past).
    static func instant(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let seconds = milliseconds.quotientAndRemainder(dividingBy: 1000)
        let (wholeSeconds, fraction) = seconds.remainder < 0 ? (seconds.quotient - 1, seconds.remainder + 1000)
                                                             : (seconds.quotient, seconds.remainder)
        let days = wholeSeconds.quotientAndRemainder(dividingBy: 86_400)
        let (day, secondOfDay) = days.remainder < 0 ? (days.quotient - 1, days.remainder + 86_400)
                                                   : (days.quotient, days.remainder)
        // Howard Hinnant's civil_from_days.
        let z = day + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let dayOfMonth = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let millis = fraction < 10 ? "00\(fraction)" : fraction < 100 ? "0\(fraction)" : "\(fraction)"
        let yearText = year >= 0 && year < 10_000 ? String(repeating: "0", count: 4 - String(year).count) + String(year)
                                                  : String(year)
        return "\(yearText)-\(two(month))-\(two(dayOfMonth))T\(two(secondOfDay / 3600)):\(two(secondOfDay % 3600 / 60))"
            + ":\(two(secondOfDay % 60)).\(millis)Z"
    }
}
