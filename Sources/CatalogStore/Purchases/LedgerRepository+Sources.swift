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
        let item = Self.notificationItem(notification).text
        let rows = try await database.execute("""
            SELECT created, outcome FROM purchases_record_notification(\(item)::jsonb)
            """)
        guard let row = rows.first else {
            throw StoreInvariantViolation(description: "the database answered nothing for a notification")
        }
        let (created, outcome) = try row.decode((Bool, String?).self)
        return (created, outcome.flatMap(LedgerTransaction.Outcome.init(rawValue:)))
    }

    private static func notificationItem(_ notification: NotificationRecord) -> JSONObjectWriter {
        var item = JSONObjectWriter()
        item.add("notificationUUID", notification.notificationUUID.uuidString)
        item.add("app", notification.bundleID)
        item.add("notificationType", notification.notificationType)
        item.add("subtype", notification.subtype)
        item.add("environment", notification.environment.rawValue)
        item.add("signedDate", RFC3339Text.milliseconds(notification.signedDate))
        item.add("transactionId", notification.facts?.transactionId)
        item.add("originalTransactionId", notification.facts?.originalTransactionId)
        item.add("facts", notification.facts.map(PurchaseJSON.facts))
        item.add("reason", "App Store notification \(notification.notificationType)"
                     + (notification.subtype.map { " (\($0))" } ?? ""))
        item.add("requestId", notification.requestID)
        return item
    }
}
