import CatalogCore
import Foundation
import PurchaseCore

/// Submissions and ledger rows as the database's functions answer them (`to_jsonb` of a row: the column names,
/// timestamps in ISO 8601 with the session's offset), read into PurchaseCore's types.
enum PurchaseRowJSON {
    struct LedgerRow: Decodable {
        let app: String
        let environment: String
        let transactionId: String
        let originalTransactionId: String
        let productId: String
        let appleType: String?
        let catalogType: String?
        let catalogMismatch: Bool
        let quantity: Int
        let purchaseDate: PostgresJSONTime
        let originalPurchaseDate: PostgresJSONTime?
        let expiresDate: PostgresJSONTime?
        let revocationDate: PostgresJSONTime?
        let revocationReason: Int?
        let price: Int64?
        let currency: String?
        let storefront: String?
        let appTransactionId: String?
        let inAppOwnershipType: String?
        let webOrderLineItemId: String?
        let transactionReason: String?
        let accountToken: String
        let version: Int
        let createdAt: PostgresJSONTime
        let updatedAt: PostgresJSONTime
        /// In a submission's transactions only.
        let credited: Bool?
        let alreadyRecorded: Bool?

        enum CodingKeys: String, CodingKey {
            case app, environment, quantity, price, currency, storefront, version, credited
            case transactionId = "transaction_id", originalTransactionId = "original_transaction_id"
            case productId = "product_id", appleType = "apple_type", catalogType = "catalog_type"
            case catalogMismatch = "catalog_mismatch", purchaseDate = "purchase_date"
            case originalPurchaseDate = "original_purchase_date", expiresDate = "expires_date"
            case revocationDate = "revocation_date", revocationReason = "revocation_reason"
            case appTransactionId = "app_transaction_id", inAppOwnershipType = "in_app_ownership_type"
            case webOrderLineItemId = "web_order_line_item_id", transactionReason = "transaction_reason"
            case accountToken = "account_token", createdAt = "created_at", updatedAt = "updated_at"
            case alreadyRecorded = "already_recorded"
        }

        func transaction() throws -> LedgerTransaction {
            guard let environment = AppStoreEnvironment(rawValue: environment) else {
                throw StoreInvariantViolation(description: "unknown environment \(environment) in the ledger")
            }
            return LedgerTransaction(
                bundleID: app, environment: environment, transactionId: transactionId,
                originalTransactionId: originalTransactionId, productId: productId, appleType: appleType,
                catalogType: catalogType.flatMap(PurchaseType.init(rawValue:)), catalogMismatch: catalogMismatch,
                quantity: quantity, purchaseDate: purchaseDate.date, originalPurchaseDate: originalPurchaseDate?.date,
                expiresDate: expiresDate?.date, revocationDate: revocationDate?.date, revocationReason: revocationReason,
                price: price, currency: currency, storefront: storefront, appTransactionId: appTransactionId,
                inAppOwnershipType: inAppOwnershipType, webOrderLineItemId: webOrderLineItemId,
                transactionReason: transactionReason, accountToken: accountToken, version: version,
                createdAt: createdAt.date, updatedAt: updatedAt.date)
        }
    }

    struct SubmissionRow: Decodable {
        let id: UUID
        let app: String
        let keyId: UUID
        let accountToken: String
        let kind: String
        let status: String
        let environment: String?
        let attempts: Int
        let nextAttemptAt: PostgresJSONTime?
        let leaseExpiresAt: PostgresJSONTime?
        let appleStatus: Int?
        let problems: [String]
        let createdAt: PostgresJSONTime
        let updatedAt: PostgresJSONTime
        let finishedAt: PostgresJSONTime?
        let transactions: [LedgerRow]?

        enum CodingKeys: String, CodingKey {
            case id, app, kind, status, environment, attempts, problems, transactions
            case keyId = "key_id", accountToken = "account_token", nextAttemptAt = "next_attempt_at"
            case leaseExpiresAt = "lease_expires_at", appleStatus = "apple_status", createdAt = "created_at"
            case updatedAt = "updated_at", finishedAt = "finished_at"
        }

        func submission() throws -> PurchaseSubmission {
            guard let kind = PurchaseSubmission.Kind(rawValue: kind), let status = SubmissionStatus(rawValue: status)
            else { throw StoreInvariantViolation(description: "unknown kind \(kind) or status \(status) of a submission") }
            return PurchaseSubmission(
                id: id, bundleID: app, keyID: keyId, accountToken: accountToken, kind: kind, status: status,
                environment: environment.flatMap(AppStoreEnvironment.init(rawValue:)), attempts: attempts,
                nextAttemptAt: nextAttemptAt?.date, leaseExpiresAt: leaseExpiresAt?.date, appleStatus: appleStatus,
                problems: problems, createdAt: createdAt.date, updatedAt: updatedAt.date, finishedAt: finishedAt?.date,
                transactions: try (transactions ?? []).map {
                    SubmittedTransaction(transaction: try $0.transaction(), credited: $0.credited ?? false,
                                         alreadyRecorded: $0.alreadyRecorded ?? false)
                })
        }
    }

    /// The rows' column names are their coding keys: a key strategy (`convertFromSnakeCase`) would convert every
    /// key of every row read, a sixteenth of the server's time for a signed transaction.
    static let decoder = JSONDecoder()

    static func submission(_ text: String) throws -> PurchaseSubmission {
        try decoder.decode(SubmissionRow.self, from: Data(text.utf8)).submission()
    }

    static func transaction(_ text: String) throws -> LedgerTransaction {
        try decoder.decode(LedgerRow.self, from: Data(text.utf8)).transaction()
    }
}

/// A `timestamptz` as `to_jsonb` writes it: `2025-11-01T10:00:00.123456+00:00` (fraction and offset as the value
/// and the session's time zone have them), read to the microsecond.
struct PostgresJSONTime: Decodable, Hashable {
    let date: Date

    init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let date = Self.parse(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                    debugDescription: "not a PostgreSQL timestamp: \(text)"))
        }
        self.date = date
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
