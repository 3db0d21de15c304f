/// An App Store Server Notification V2, decoded from its `signedPayload` (Apple's ResponseBodyV2DecodedPayload),
/// under Apple's names. Exactly one of `data`, `summary` and `externalPurchaseToken` is present; `data` carries
/// the transaction and renewal information, each signed on its own.
public struct AppStoreNotification: Sendable, Hashable, Codable {
    /// The event (`DID_RENEW`, `REFUND`, ...).
    public var notificationType: NotificationType?
    /// More about the event, for some types.
    public var subtype: NotificationSubtype?
    /// The notification's own identifier: Apple sends a notification again with the same one until answered.
    public var notificationUUID: String?
    /// The app, its environment and the signed transaction and renewal information.
    public var data: NotificationData?
    /// The notifications version, "2.0".
    public var version: String?
    /// When the App Store signed this notification.
    public var signedDate: AppStoreDate?
    /// The outcome of a request to extend many subscriptions' renewal dates (`RENEWAL_EXTENSION`, `SUMMARY`).
    public var summary: NotificationSummary?
    /// An external purchase token (`EXTERNAL_PURCHASE_TOKEN`).
    public var externalPurchaseToken: ExternalPurchaseToken?

    /// An empty notification, for building one field by field (the stand-in, tests).
    public init() {}
}

/// The app and the signed data a notification is about (Apple's `data`).
public struct NotificationData: Sendable, Hashable, Codable {
    /// "Production" or "Sandbox" (or "Xcode", "LocalTesting").
    public var environment: String?
    /// The app's identifier in the App Store.
    public var appAppleId: Int64?
    /// The app's bundle identifier.
    public var bundleId: String?
    /// The build's version.
    public var bundleVersion: String?
    /// The transaction, as a JWS of its own (`AppStoreTransaction`).
    public var signedTransactionInfo: String?
    /// The subscription's renewal information, as a JWS of its own (`AppStoreRenewalInfo`).
    public var signedRenewalInfo: String?
    /// The subscription's status at `signedDate` (1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked).
    public var status: Int?
    /// Why the customer asked for a refund (`CONSUMPTION_REQUEST`).
    public var consumptionRequestReason: String?

    /// Empty data, for building one field by field.
    public init() {}
}

/// The outcome of a request to extend subscriptions' renewal dates (Apple's `summary`).
public struct NotificationSummary: Sendable, Hashable, Codable {
    /// The identifier of the extension request.
    public var requestIdentifier: String?
    /// "Production" or "Sandbox".
    public var environment: String?
    /// The app's identifier in the App Store.
    public var appAppleId: Int64?
    /// The app's bundle identifier.
    public var bundleId: String?
    /// The subscription's product identifier.
    public var productId: String?
    /// The storefronts the request covered.
    public var storefrontCountryCodes: [String]?
    /// How many subscriptions were extended.
    public var succeededCount: Int64?
    /// How many could not be.
    public var failedCount: Int64?

    /// An empty summary, for building one field by field.
    public init() {}
}

/// An external purchase token (Apple's `externalPurchaseToken`).
public struct ExternalPurchaseToken: Sendable, Hashable, Codable {
    /// The token's identifier; Apple starts sandbox ones with "SANDBOX".
    public var externalPurchaseId: String?
    /// When the token was created.
    public var tokenCreationDate: AppStoreDate?
    /// The app's identifier in the App Store.
    public var appAppleId: Int64?
    /// The app's bundle identifier.
    public var bundleId: String?

    /// An empty token, for building one field by field.
    public init() {}
}

extension AppStoreNotification: SignedPayload {
    static let kind = "notification"

    /// Where Apple's library reads it: `data`, else `summary`, else the token (sandbox tokens start with "SANDBOX").
    var claimedEnvironment: String? {
        if let data { return data.environment }
        if let summary { return summary.environment }
        if let token = externalPurchaseToken {
            return token.externalPurchaseId?.hasPrefix("SANDBOX") == true
                ? AppStoreEnvironment.sandbox.rawValue : AppStoreEnvironment.production.rawValue
        }
        return nil
    }

    static let namesBundle = true
    var claimedBundleId: String? { data?.bundleId ?? summary?.bundleId ?? externalPurchaseToken?.bundleId }

    /// The app's App Store identifier the notification names, from the same place as its bundle.
    var claimedAppAppleId: Int64? { data?.appAppleId ?? summary?.appAppleId ?? externalPurchaseToken?.appAppleId }
}
