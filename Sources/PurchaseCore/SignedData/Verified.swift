/// A payload whose signature, chain and claims passed `SignedDataVerifier`'s checks for an app's policy.
public struct Verified<Payload: Sendable>: Sendable {
    /// The decoded payload.
    public let payload: Payload
    /// The environment it was signed for, one the policy accepts. Records keep it, so that Sandbox and Xcode
    /// are never counted with Production.
    public let environment: AppStoreEnvironment
    /// When the App Store (or Xcode) signed it.
    public let signedDate: AppStoreDate
    /// True when it chains to a trusted root; false for Xcode's local test data, which only the policy's
    /// `acceptsXcode` admits.
    public let isChainVerified: Bool
}

extension Verified: Equatable where Payload: Equatable {}

/// A verified App Store Server Notification V2 with the signed data it carries, each part verified.
public struct VerifiedNotification: Sendable {
    /// The notification itself.
    public let notification: Verified<AppStoreNotification>
    /// `data.signedTransactionInfo`, verified for the same app and environment, when the notification has one.
    public let transaction: Verified<AppStoreTransaction>?
    /// `data.signedRenewalInfo`, verified for the same environment, when the notification has one.
    public let renewalInfo: Verified<AppStoreRenewalInfo>?
}
