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
}
