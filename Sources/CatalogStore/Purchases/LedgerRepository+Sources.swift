import CatalogCore
import Foundation
import PostgresNIO
import PurchaseCore

/// An App Store Server Notification, verified, as the ledger records it.
public struct NotificationRecord: Sendable, Hashable {
    public var notificationUUID: UUID
    public var bundleID: String
    public var notificationType: String
    public var subtype: String?
    public var environment: AppStoreEnvironment
    public var signedDate: Date
    /// The transaction it carries, if any: merged into the ledger (a renewal, a refund, its reversal).
    public var facts: TransactionFacts?
    public var requestID: String?

    public init(notificationUUID: UUID, bundleID: String, notificationType: String, subtype: String?,
                environment: AppStoreEnvironment, signedDate: Date, facts: TransactionFacts?, requestID: String?) {
        self.notificationUUID = notificationUUID
        self.bundleID = bundleID
        self.notificationType = notificationType
        self.subtype = subtype
        self.environment = environment
        self.signedDate = signedDate
        self.facts = facts
        self.requestID = requestID
    }
}

/// A receipt the App Store verified, as the verification worker records it for a submission it leased.
public struct VerifiedReceiptOutcome: Sendable, Hashable {
    public var submissionID: UUID
    /// The submission's `attempts` when it was leased: the outcome is recorded only if the lease is still this one.
    public var attempts: Int
    public var environment: AppStoreEnvironment
    public var appleStatus: Int?
    /// What was wrong in Apple's answer without stopping verification, one sentence each.
    public var problems: [String]
    public var transactions: [TransactionFacts]

    public init(submissionID: UUID, attempts: Int, environment: AppStoreEnvironment, appleStatus: Int?,
                problems: [String], transactions: [TransactionFacts]) {
        self.submissionID = submissionID
        self.attempts = attempts
        self.environment = environment
        self.appleStatus = appleStatus
        self.problems = problems
        self.transactions = transactions
    }
}

extension LedgerRepository {
    /// Records a notification once by its notificationUUID and merges its transaction into the ledger on behalf
    /// of the App Store; a notification received before changes nothing. Answers whether it is new, and what
    /// became of its transaction (`nil`: none, or a repeat).
    public func recordNotification(_ notification: NotificationRecord) async throws
        -> (created: Bool, outcome: LedgerTransaction.Outcome?)
    {
        let item = NotificationItem(notification)
        let rows = try await database.execute("""
            SELECT created, outcome FROM purchases_record_notification(\(try PurchaseJSON.encode(item))::jsonb)
            """)
        guard let row = rows.first else {
            throw StoreInvariantViolation(description: "the database answered nothing for a notification")
        }
        let (created, outcome) = try row.decode((Bool, String?).self)
        return (created, outcome.flatMap(LedgerTransaction.Outcome.init(rawValue:)))
    }

    /// Records verified receipts for the submissions still leased by the attempts given, in one statement and one
    /// transaction: their transactions merged into the ledger (each change a history event on behalf of the key
    /// that submitted it), the submissions verified, their receipts deleted. Answers the ids recorded; an outcome
    /// whose lease expired and was taken over is not recorded.
    public func recordVerified(_ outcomes: [VerifiedReceiptOutcome], requestID: String? = nil) async throws -> Set<UUID> {
        guard !outcomes.isEmpty else { return [] }
        // Ledger rows locked in one order by every batch.
        let sorted = outcomes.map { outcome -> VerifiedItem in
            var outcome = outcome
            outcome.transactions.sort { ($0.environment.rawValue, $0.transactionId) < ($1.environment.rawValue, $1.transactionId) }
            return VerifiedItem(outcome, requestID: requestID)
        }.sorted { ($0.firstKey ?? "") < ($1.firstKey ?? "") }
        let rows = try await database.execute("""
            SELECT ordinal FROM purchases_record_verified(\(try PurchaseJSON.encode(sorted))::jsonb)
            """)
        let ordinals = Set(try rows.map { try $0.decode(Int.self) })
        return Set(sorted.enumerated().filter { ordinals.contains($0.offset + 1) }.map(\.element.submissionId))
    }

    private struct NotificationItem: Encodable {
        let notificationUUID: UUID
        let app: String
        let notificationType: String
        let subtype: String?
        let environment: String
        let signedDate: Date
        let transactionId: String?
        let originalTransactionId: String?
        let facts: TransactionFacts?
        let reason: String
        let requestId: String?

        init(_ notification: NotificationRecord) {
            notificationUUID = notification.notificationUUID
            app = notification.bundleID
            notificationType = notification.notificationType
            subtype = notification.subtype
            environment = notification.environment.rawValue
            signedDate = notification.signedDate
            transactionId = notification.facts?.transactionId
            originalTransactionId = notification.facts?.originalTransactionId
            facts = notification.facts
            reason = "App Store notification \(notification.notificationType)"
                + (notification.subtype.map { " (\($0))" } ?? "")
            requestId = notification.requestID
        }
    }

    private struct VerifiedItem: Encodable {
        let submissionId: UUID
        let attempts: Int
        let environment: String
        let appleStatus: Int?
        let problems: [String]
        let transactions: [TransactionFacts]
        let reason: String
        let requestId: String?

        init(_ outcome: VerifiedReceiptOutcome, requestID: String?) {
            submissionId = outcome.submissionID
            attempts = outcome.attempts
            environment = outcome.environment.rawValue
            appleStatus = outcome.appleStatus
            problems = outcome.problems
            transactions = outcome.transactions
            reason = "receipt verified by the App Store"
            requestId = requestID
        }

        var firstKey: String? { transactions.first.map { "\($0.environment.rawValue)|\($0.transactionId)" } }
    }
}
