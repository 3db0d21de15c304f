import Foundation

/// A transaction as the App Store signs it: StoreKit 2's `Transaction.jwsRepresentation`, the App Store Server
/// API's `signedTransactionInfo` (Apple's JWSTransactionDecodedPayload), field for field under Apple's names.
///
/// Every field is optional, as in Apple's own library: which ones are present depends on the product's type
/// (`expiresDate` for subscriptions, ...). Dates are `AppStoreDate` (milliseconds since 1970); `price` is in
/// milliunits of `currency` (990 is 0.99). Fields Apple adds later are ignored; values of its enumerations that
/// this code does not know are kept as they came.
public struct AppStoreTransaction: Sendable, Hashable, Codable {
    /// The transaction identifier of the original purchase; renewals and restores share it.
    public var originalTransactionId: String?
    /// The identifier of this transaction, unique per environment.
    public var transactionId: String?
    /// The identifier of a subscription's purchase events across devices, renewals included.
    public var webOrderLineItemId: String?
    /// The app's bundle identifier.
    public var bundleId: String?
    /// The product identifier from App Store Connect.
    public var productId: String?
    /// The subscription group of an auto-renewable subscription.
    public var subscriptionGroupIdentifier: String?
    /// When the App Store charged the customer (or restored the purchase, or renewed after a lapse).
    public var purchaseDate: AppStoreDate?
    /// The purchase date of the original transaction.
    public var originalPurchaseDate: AppStoreDate?
    /// When an auto-renewable subscription expires or renews.
    public var expiresDate: AppStoreDate?
    /// How many units of a consumable were bought.
    public var quantity: Int?
    /// The product's type ("Consumable", "Auto-Renewable Subscription", ...).
    public var type: AppStoreProductType?
    /// The UUID the app gave StoreKit for its own account (`appAccountToken`).
    public var appAccountToken: UUID?
    /// Bought by the customer, or shared with them by their family.
    public var inAppOwnershipType: InAppOwnershipType?
    /// When the App Store signed this data; certificates are checked at this moment.
    public var signedDate: AppStoreDate?
    /// Why the App Store refunded or revoked the transaction.
    public var revocationReason: RevocationReason?
    /// When the App Store refunded or revoked the transaction.
    public var revocationDate: AppStoreDate?
    /// Whether the customer upgraded to another subscription.
    public var isUpgraded: Bool?
    /// The kind of subscription offer (1 introductory, 2 promotional, 3 offer code, 4 win-back).
    public var offerType: Int?
    /// The offer's identifier or the promo code.
    public var offerIdentifier: String?
    /// "Production", "Sandbox", "Xcode" or "LocalTesting", as signed.
    public var environment: String?
    /// The storefront's three-letter country or region code.
    public var storefront: String?
    /// Apple's identifier of the storefront.
    public var storefrontId: String?
    /// A customer's purchase or a renewal the system started.
    public var transactionReason: TransactionReason?
    /// The ISO 4217 currency of `price`.
    public var currency: String?
    /// The price in milliunits of `currency`.
    public var price: Int64?
    /// The payment mode of a subscription offer ("FREE_TRIAL", "PAY_AS_YOU_GO", "PAY_UP_FRONT", ...).
    public var offerDiscountType: String?
    /// The identifier of the app download this transaction belongs to, the same for every purchase made from
    /// one App Store account's download.
    public var appTransactionId: String?
    /// The duration of the offer (ISO 8601, e.g. "P1M").
    public var offerPeriod: String?

    /// An empty transaction, for building one field by field (the stand-in, tests).
    public init() {}
}

extension AppStoreTransaction: SignedPayload {
    static let kind = "transaction"
    var claimedEnvironment: String? { environment }
    static let namesBundle = true
    var claimedBundleId: String? { bundleId }
}
