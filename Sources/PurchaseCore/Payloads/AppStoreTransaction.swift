import CatalogCore
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

    /// Read by name rather than by `JSONDecoder`, whose containers cost a signed transaction more than its text
    /// (docs/performance.md, "The intake without the generated layer"); the same values and the same refusals,
    /// which PurchaseCoreTests compares.
    static func decode(_ payload: Data) -> AppStoreTransaction? {
        guard let text = String(validating: payload, as: UTF8.self), let fields = JSONFields(parsing: text) else {
            return nil
        }
        return try? AppStoreTransaction(fields)
    }
}

extension AppStoreTransaction {
    /// The transaction `fields` hold, as the `Decodable` conformance reads it: an absent member and a `null` are
    /// no value, a member of another type refuses the whole, other members are ignored. One difference:
    /// `appAccountToken` is read by `UUID(text:)`, the RFC 4122 form only, where Foundation's reader also takes
    /// some malformed texts as a wrong id.
    public init(_ fields: JSONFields) throws(JSONFields.Problem) {
        func date(_ key: String) throws(JSONFields.Problem) -> AppStoreDate? {
            try fields.integer(ifPresent: key, as: Int64.self).map(AppStoreDate.init(millisecondsSince1970:))
        }
        self.init()
        originalTransactionId = try fields.string(ifPresent: "originalTransactionId")
        transactionId = try fields.string(ifPresent: "transactionId")
        webOrderLineItemId = try fields.string(ifPresent: "webOrderLineItemId")
        bundleId = try fields.string(ifPresent: "bundleId")
        productId = try fields.string(ifPresent: "productId")
        subscriptionGroupIdentifier = try fields.string(ifPresent: "subscriptionGroupIdentifier")
        purchaseDate = try date("purchaseDate")
        originalPurchaseDate = try date("originalPurchaseDate")
        expiresDate = try date("expiresDate")
        quantity = try fields.integer(ifPresent: "quantity")
        type = try fields.string(ifPresent: "type").map(AppStoreProductType.init(rawValue:))
        if let token = try fields.string(ifPresent: "appAccountToken") {
            guard let uuid = UUID(text: token) else {
                throw JSONFields.Problem(key: "appAccountToken", expected: "a UUID")
            }
            appAccountToken = uuid
        }
        inAppOwnershipType = try fields.string(ifPresent: "inAppOwnershipType").map(InAppOwnershipType.init(rawValue:))
        signedDate = try date("signedDate")
        revocationReason = try fields.integer(ifPresent: "revocationReason").map(RevocationReason.init(rawValue:))
        revocationDate = try date("revocationDate")
        isUpgraded = try fields.bool(ifPresent: "isUpgraded")
        offerType = try fields.integer(ifPresent: "offerType")
        offerIdentifier = try fields.string(ifPresent: "offerIdentifier")
        environment = try fields.string(ifPresent: "environment")
        storefront = try fields.string(ifPresent: "storefront")
        storefrontId = try fields.string(ifPresent: "storefrontId")
        transactionReason = try fields.string(ifPresent: "transactionReason").map(TransactionReason.init(rawValue:))
        currency = try fields.string(ifPresent: "currency")
        price = try fields.integer(ifPresent: "price", as: Int64.self)
        offerDiscountType = try fields.string(ifPresent: "offerDiscountType")
        appTransactionId = try fields.string(ifPresent: "appTransactionId")
        offerPeriod = try fields.string(ifPresent: "offerPeriod")
    }
}
