import CatalogCore
import Foundation
import PurchaseCore

/// Submissions and ledger rows as the database's functions answer them (`row_to_json` of a row: the column names,
/// timestamps in ISO 8601 with the session's offset), read into PurchaseCore's types with ``JSONFields``.
enum PurchaseRowJSON {
    static func submission(_ text: String) throws -> PurchaseSubmission {
        guard let row = JSONFields(parsing: text) else { throw unreadable("a submission", "not a JSON object") }
        do {
            return try submission(row)
        } catch {
            throw unreadable("a submission", "\(error)")
        }
    }

    private static func submission(_ row: JSONFields) throws -> PurchaseSubmission {
        let kind = try row.string("kind"), status = try row.string("status")
        guard let kind = PurchaseSubmission.Kind(rawValue: kind), let status = SubmissionStatus(rawValue: status) else {
            throw StoreInvariantViolation(description: "unknown kind \(kind) or status \(status) of a submission")
        }
        return PurchaseSubmission(
            id: try uuid(row, "id"), bundleID: try row.string("app"), keyID: try uuid(row, "key_id"),
            accountToken: try row.string("account_token"), kind: kind, status: status,
            environment: try row.string(ifPresent: "environment").flatMap(AppStoreEnvironment.init(rawValue:)),
            attempts: try row.integer("attempts"), nextAttemptAt: try time(ifPresent: row, "next_attempt_at"),
            leaseExpiresAt: try time(ifPresent: row, "lease_expires_at"),
            appleStatus: try row.integer(ifPresent: "apple_status"), problems: try row.strings("problems"),
            createdAt: try time(row, "created_at"), updatedAt: try time(row, "updated_at"),
            finishedAt: try time(ifPresent: row, "finished_at"),
            transactions: try (row.objects(ifPresent: "transactions") ?? []).map {
                SubmittedTransaction(transaction: try transaction($0),
                                     credited: try $0.bool(ifPresent: "credited") ?? false,
                                     alreadyRecorded: try $0.bool(ifPresent: "already_recorded") ?? false)
            })
    }

    private static func transaction(_ row: JSONFields) throws -> LedgerTransaction {
        let environment = try row.string("environment")
        guard let environment = AppStoreEnvironment(rawValue: environment) else {
            throw StoreInvariantViolation(description: "unknown environment \(environment) in the ledger")
        }
        return LedgerTransaction(
            bundleID: try row.string("app"), environment: environment, transactionId: try row.string("transaction_id"),
            originalTransactionId: try row.string("original_transaction_id"), productId: try row.string("product_id"),
            appleType: try row.string(ifPresent: "apple_type"),
            catalogType: try row.string(ifPresent: "catalog_type").flatMap(PurchaseType.init(rawValue:)),
            catalogMismatch: try row.bool("catalog_mismatch"), quantity: try row.integer("quantity"),
            purchaseDate: try time(row, "purchase_date"),
            originalPurchaseDate: try time(ifPresent: row, "original_purchase_date"),
            expiresDate: try time(ifPresent: row, "expires_date"),
            revocationDate: try time(ifPresent: row, "revocation_date"),
            revocationReason: try row.integer(ifPresent: "revocation_reason"),
            price: try row.integer(ifPresent: "price"),
            currency: try row.string(ifPresent: "currency"), storefront: try row.string(ifPresent: "storefront"),
            appTransactionId: try row.string(ifPresent: "app_transaction_id"),
            inAppOwnershipType: try row.string(ifPresent: "in_app_ownership_type"),
            webOrderLineItemId: try row.string(ifPresent: "web_order_line_item_id"),
            transactionReason: try row.string(ifPresent: "transaction_reason"),
            accountToken: try row.string("account_token"), version: try row.integer("version"),
            createdAt: try time(row, "created_at"), updatedAt: try time(row, "updated_at"))
    }

    static func uuid(_ row: JSONFields, _ key: String) throws -> UUID {
        guard let uuid = UUID(text: try row.string(key)) else {
            throw JSONFields.Problem(key: key, expected: "a UUID")
        }
        return uuid
    }

    static func time(ifPresent row: JSONFields, _ key: String) throws -> Date? {
        guard let text = try row.string(ifPresent: key) else { return nil }
        guard let date = PostgresJSONTime.parse(text) else {
            throw JSONFields.Problem(key: key, expected: "a PostgreSQL timestamp")
        }
        return date
    }

    static func time(_ row: JSONFields, _ key: String) throws -> Date {
        guard let date = try time(ifPresent: row, key) else {
            throw JSONFields.Problem(key: key, expected: "a PostgreSQL timestamp")
        }
        return date
    }

    static func unreadable(_ what: String, _ why: String) -> StoreInvariantViolation {
        StoreInvariantViolation(description: "the database answered \(what) the service cannot read: \(why)")
    }
}

/// A `timestamptz` as `to_jsonb` and `row_to_json` write it: `2025-11-01T10:00:00.123456+00:00` (fraction and
/// offset as the value and the session's time zone have them), read to the microsecond.
enum PostgresJSONTime {
    /// `date` as an item writes it for the database (RFC3339Text, to the millisecond) and this reads it back: the
    /// same `Date` the database's answer would give, where the Double computed another way may differ in its last
    /// bit.
    static func stored(_ date: Date) -> Date {
        parse(RFC3339Text.milliseconds(date)) ?? date
    }

    static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        var position = 0
        func number(_ digits: Int) -> Int? {
            guard position + digits <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[position..<position + digits] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            position += digits
            return value
        }
        func skip(_ byte: UInt8) -> Bool {
            guard position < bytes.count, bytes[position] == byte else { return false }
            position += 1
            return true
        }
        guard let year = number(4), skip(0x2D), let month = number(2), skip(0x2D), let day = number(2),
              skip(0x54), let hour = number(2), skip(0x3A), let minute = number(2), skip(0x3A), let second = number(2)
        else { return nil }
        var microseconds = 0
        if skip(0x2E) {
            var digits = 0
            while position < bytes.count, (0x30...0x39).contains(bytes[position]) {
                if digits < 6 { microseconds = microseconds * 10 + Int(bytes[position] - 0x30) }
                digits += 1
                position += 1
            }
            for _ in digits..<max(digits, 6) { microseconds *= 10 }
        }
        var offset = 0
        if skip(0x5A) {
            offset = 0
        } else if position < bytes.count, bytes[position] == 0x2B || bytes[position] == 0x2D {
            let sign = bytes[position] == 0x2D ? -1 : 1
            position += 1
            guard let hours = number(2) else { return nil }
            var minutes = 0
            if skip(0x3A) {
                guard let value = number(2) else { return nil }
                minutes = value
            }
            offset = sign * (hours * 3600 + minutes * 60)
        } else {
            return nil
        }
        guard position == bytes.count else { return nil }
        // Days from 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's days_from_civil).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: Double(seconds) + Double(microseconds) / 1_000_000)
    }
}
