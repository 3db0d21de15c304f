import Crypto
import Foundation
import PurchaseCore

/// Signs App Store data as the App Store does, with a `TestChain`: transactions, renewal information and
/// App Store Server Notifications V2, each a JWS (ES256, `x5c` = leaf, intermediate, root). What it signs
/// verifies with `SignedDataVerifier` when the chain's root is trusted.
public struct StandInSigner: Sendable {
    /// The chain whose leaf signs.
    public let chain: TestChain

    public init(chain: TestChain) {
        self.chain = chain
    }

    /// `transaction` as a JWS, as StoreKit 2's `jwsRepresentation`.
    public func sign(_ transaction: AppStoreTransaction) throws -> String {
        try sign(payload: transaction)
    }

    /// `renewalInfo` as a JWS, as the App Store's `signedRenewalInfo`.
    public func sign(_ renewalInfo: AppStoreRenewalInfo) throws -> String {
        try sign(payload: renewalInfo)
    }

    /// `notification` as a JWS, the `signedPayload` of a notification's body.
    public func sign(_ notification: AppStoreNotification) throws -> String {
        try sign(payload: notification)
    }

    /// A notification of `type` about `transaction`, with the transaction (and, for an auto-renewable
    /// subscription, renewal information) signed inside it, as the App Store sends them; `data`'s bundle and
    /// environment are the transaction's. `signedTransaction` is used as it is when given (it must be
    /// `transaction`'s JWS), else the transaction is signed.
    public func notification(
        type: NotificationType,
        subtype: NotificationSubtype? = nil,
        about transaction: AppStoreTransaction,
        signedTransaction: String? = nil,
        appAppleId: Int64? = nil,
        notificationUUID: UUID = UUID(),
        signedDate: AppStoreDate = AppStoreDate(Date())
    ) throws -> AppStoreNotification {
        var data = NotificationData()
        data.environment = transaction.environment
        data.bundleId = transaction.bundleId
        data.appAppleId = appAppleId
        data.bundleVersion = "1"
        data.signedTransactionInfo = try signedTransaction ?? sign(transaction)
        if transaction.type == .autoRenewableSubscription {
            var renewal = AppStoreRenewalInfo()
            renewal.originalTransactionId = transaction.originalTransactionId
            renewal.productId = transaction.productId
            renewal.autoRenewProductId = transaction.productId
            renewal.autoRenewStatus = type == .expired || subtype == .autoRenewDisabled ? 0 : 1
            renewal.environment = transaction.environment
            renewal.signedDate = signedDate
            renewal.renewalDate = transaction.expiresDate
            renewal.recentSubscriptionStartDate = transaction.originalPurchaseDate
            renewal.appAccountToken = transaction.appAccountToken
            renewal.appTransactionId = transaction.appTransactionId
            data.signedRenewalInfo = try sign(renewal)
            data.status = type == .expired ? 2 : type == .revoke ? 5 : 1
        }
        var notification = AppStoreNotification()
        notification.notificationType = type
        notification.subtype = subtype
        notification.notificationUUID = notificationUUID.uuidString.lowercased()
        notification.data = data
        notification.version = "2.0"
        notification.signedDate = signedDate
        return notification
    }

    /// Any payload as a JWS signed by the chain's leaf, with `x5c` = leaf, intermediate, root.
    public func sign(payload: some Encodable) throws -> String {
        try sign(payload: payload, x5c: chain.x5c, key: chain.leafKey)
    }

    /// Any payload as a JWS with `x5c` as given (nil: no `x5c` at all), signed by `key`: what tests need to
    /// make forged data (another key, two or four certificates, no chain).
    public func sign(payload: some Encodable, x5c: [String]?, key: P256.Signing.PrivateKey) throws -> String {
        let header = try Self.encoder.encode(Header(alg: "ES256", x5c: x5c))
        let signingInput = "\(Base64URL.encode(header)).\(Base64URL.encode(try Self.encoder.encode(payload)))"
        let signature = try key.signature(for: Data(signingInput.utf8))
        return "\(signingInput).\(Base64URL.encode(signature.rawRepresentation))"
    }

    private struct Header: Encodable {
        let alg: String
        let x5c: [String]?
    }

    /// Apple writes `/` in base64 unescaped.
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }()
}
