import Foundation

/// An auto-renewable subscription's renewal information as the App Store signs it (`signedRenewalInfo`, Apple's
/// JWSRenewalInfoDecodedPayload), under Apple's names. As in `AppStoreTransaction`, every field is optional,
/// dates are milliseconds since 1970 and prices milliunits.
public struct AppStoreRenewalInfo: Sendable, Hashable, Codable {
    /// Why the subscription expired (1 cancelled, 2 billing error, 3 price increase refused, 4 not for sale, 5 other).
    public var expirationIntent: Int?
    /// The original transaction identifier of the subscription.
    public var originalTransactionId: String?
    /// The product that renews at the next billing period.
    public var autoRenewProductId: String?
    /// The product the customer is subscribed to now.
    public var productId: String?
    /// 1 when the subscription renews automatically, 0 when the customer turned renewal off.
    public var autoRenewStatus: Int?
    /// Whether the App Store is still trying to bill an expired subscription.
    public var isInBillingRetryPeriod: Bool?
    /// Whether the customer accepted a price increase (0 not yet, 1 accepted).
    public var priceIncreaseStatus: Int?
    /// When the billing grace period ends.
    public var gracePeriodExpiresDate: AppStoreDate?
    /// The kind of offer applied at the next renewal.
    public var offerType: Int?
    /// The offer's identifier or the promo code.
    public var offerIdentifier: String?
    /// When the App Store signed this data.
    public var signedDate: AppStoreDate?
    /// "Production", "Sandbox", "Xcode" or "LocalTesting", as signed.
    public var environment: String?
    /// The start of the current run of subscription periods, ignoring lapses shorter than 60 days.
    public var recentSubscriptionStartDate: AppStoreDate?
    /// When the current period ends and the subscription renews.
    public var renewalDate: AppStoreDate?
    /// The ISO 4217 currency of `renewalPrice`.
    public var currency: String?
    /// The price of the next period in milliunits of `currency`.
    public var renewalPrice: Int64?
    /// The payment mode of the offer applied at the next renewal.
    public var offerDiscountType: String?
    /// The win-back offers the customer may redeem, best first.
    public var eligibleWinBackOfferIds: [String]?
    /// The app's own account token, as in the transactions.
    public var appAccountToken: UUID?
    /// The app download the subscription belongs to.
    public var appTransactionId: String?
    /// The duration of the offer applied at the next renewal (ISO 8601).
    public var offerPeriod: String?

    /// Empty renewal information, for building one field by field.
    public init() {}
}

extension AppStoreRenewalInfo: SignedPayload {
    static let kind = "renewal info"
    var claimedEnvironment: String? { environment }
    /// Renewal information names no bundle; the notification or transaction that carries it does.
    static let namesBundle = false
    var claimedBundleId: String? { nil }
}
