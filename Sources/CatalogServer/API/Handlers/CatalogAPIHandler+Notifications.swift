import CatalogAPI
import CatalogCore
import CatalogStore
import Foundation
import HTTPTypes
import PurchaseCore

extension CatalogAPIHandler {
    /// The longest signed payload taken (the document's `maxLength`), below the route's 64 KiB, so that one
    /// character more is refused for what it is.
    static let signedPayloadLimit = 65_000

    /// App Store Server Notifications V2: public, authenticated by the signed payload. Recorded once by
    /// notificationUUID; its transaction merged into the ledger (a renewal, a refund, a reversed refund).
    func receiveAppStoreNotification(_ input: Operations.ReceiveAppStoreNotification.Input) async throws
        -> Operations.ReceiveAppStoreNotification.Output
    {
        let bundleID = input.path.bundleId
        guard Identifiers.bundleIDProblems(bundleID).isEmpty else { throw Self.noApp(bundleID) }
        guard case .json(let body) = input.body else { throw Problem(status: .unsupportedMediaType) }
        guard body.signedPayload.utf8.count <= Self.signedPayloadLimit else {
            throw CatalogError.validationFailed([FieldProblem(
                field: "signedPayload", rule: "maxLength",
                message: "is longer than \(Self.signedPayloadLimit) characters (Apple's are under 16 KB)")])
        }
        guard let settings = try await storeSettings.settings(bundleID, from: database.storeSettings) else {
            throw Self.noApp(bundleID)
        }
        let verified: VerifiedNotification
        do {
            verified = try await verifier.verifyNotification(body.signedPayload, for: Self.policy(bundleID, settings))
        } catch {
            throw Problem.invalidProof(code: error.code, detail: error.description)
        }
        let notification = verified.notification.payload
        guard let uuidText = notification.notificationUUID, let uuid = UUID(text: uuidText),
              let type = notification.notificationType?.rawValue, !type.isEmpty, type.count <= TransactionFacts.textLimit
        else {
            throw Problem.invalidProof(code: "malformed",
                                       detail: "the notification has no notificationUUID or notificationType")
        }
        var facts: TransactionFacts?
        if let transaction = verified.transaction {
            do {
                facts = try TransactionFacts(transaction, refundReversed: notification.notificationType == .refundReversed)
            } catch {
                throw Problem.invalidProof(code: "malformed", detail: "signedTransactionInfo is malformed: \(error)")
            }
        }
        let subtype = (notification.subtype?.rawValue).flatMap { $0.isEmpty || $0.count > TransactionFacts.textLimit ? nil : $0 }
        let (created, outcome) = try await database.ledger.recordNotification(NotificationRecord(
            notificationUUID: uuid, bundleID: bundleID, notificationType: type, subtype: subtype,
            environment: verified.notification.environment, signedDate: verified.notification.signedDate.date,
            facts: facts, requestID: RequestScope.requestID))
        return .ok(.init(body: .json(.init(
            notificationUUID: uuid.lowercaseText, notificationType: type, subtype: subtype,
            environment: EnumMapping.convert(verified.notification.environment), duplicate: !created,
            transactionId: facts?.transactionId,
            outcome: outcome.map { EnumMapping.convert($0, to: Components.Schemas.AppStoreNotificationReceipt.OutcomePayload.self) }))))
    }
}
