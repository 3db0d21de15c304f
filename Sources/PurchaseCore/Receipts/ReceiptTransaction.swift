import Foundation

/// One in-app purchase transaction of an app receipt: an element of verifyReceipt's `receipt.in_app` or
/// `latest_receipt_info` arrays, as Apple documents them.
///
/// Only `transaction_id` and `product_id` are required (a transaction without them cannot be recorded); every
/// other field is optional, since receipts differ by product type and by age. Apple writes numbers and dates as
/// strings (`"quantity": "1"`, `"purchase_date_ms": "1566378403000"`); both strings and numbers are read, and
/// strings are written, as Apple does.
public struct ReceiptTransaction: Sendable, Hashable, Codable {
    /// `transaction_id`: unique per transaction (a purchase, a restore, a renewal) within its environment.
    public var transactionId: String
    /// `original_transaction_id`: the first transaction of a subscription or a restored purchase; the transaction
    /// itself when Apple leaves it out.
    public var originalTransactionId: String
    /// `product_id`: the product's identifier in App Store Connect.
    public var productId: String
    /// `quantity`: units bought (consumables); 1 when absent.
    public var quantity: Int
    /// `purchase_date_ms`.
    public var purchaseDate: Date?
    /// `original_purchase_date_ms`.
    public var originalPurchaseDate: Date?
    /// `expires_date_ms`: the end of an auto-renewable subscription's period.
    public var expiresDate: Date?
    /// `cancellation_date_ms`: when Apple refunded the transaction or revoked it from Family Sharing.
    public var cancellationDate: Date?
    /// `cancellation_reason`: `"1"` a problem in the app, `"0"` another reason; kept as Apple writes it.
    public var cancellationReason: String?
    /// `web_order_line_item_id`: identifies a subscription purchase across devices.
    public var webOrderLineItemId: String?
    /// `in_app_ownership_type`: `PURCHASED` or `FAMILY_SHARED`; kept as Apple writes it.
    public var inAppOwnershipType: String?
    /// `app_account_token`: the UUID the app set on the purchase (StoreKit's `appAccountToken`).
    public var appAccountToken: String?
    /// `subscription_group_identifier`.
    public var subscriptionGroupIdentifier: String?
    /// `is_trial_period`.
    public var isTrialPeriod: Bool?
    /// `is_in_intro_offer_period`.
    public var isInIntroOfferPeriod: Bool?
    /// `is_upgraded`: the subscription was cancelled for an upgrade.
    public var isUpgraded: Bool?
    /// `promotional_offer_id`.
    public var promotionalOfferId: String?
    /// `offer_code_ref_name`.
    public var offerCodeRefName: String?

    public init(
        transactionId: String, originalTransactionId: String? = nil, productId: String, quantity: Int = 1,
        purchaseDate: Date? = nil, originalPurchaseDate: Date? = nil, expiresDate: Date? = nil,
        cancellationDate: Date? = nil, cancellationReason: String? = nil, webOrderLineItemId: String? = nil,
        inAppOwnershipType: String? = nil, appAccountToken: String? = nil, subscriptionGroupIdentifier: String? = nil,
        isTrialPeriod: Bool? = nil, isInIntroOfferPeriod: Bool? = nil, isUpgraded: Bool? = nil,
        promotionalOfferId: String? = nil, offerCodeRefName: String? = nil
    ) {
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId ?? transactionId
        self.productId = productId
        self.quantity = quantity
        self.purchaseDate = purchaseDate
        self.originalPurchaseDate = originalPurchaseDate
        self.expiresDate = expiresDate
        self.cancellationDate = cancellationDate
        self.cancellationReason = cancellationReason
        self.webOrderLineItemId = webOrderLineItemId
        self.inAppOwnershipType = inAppOwnershipType
        self.appAccountToken = appAccountToken
        self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
        self.isTrialPeriod = isTrialPeriod
        self.isInIntroOfferPeriod = isInIntroOfferPeriod
        self.isUpgraded = isUpgraded
        self.promotionalOfferId = promotionalOfferId
        self.offerCodeRefName = offerCodeRefName
    }

    /// The same transaction as another source tells it (`latest_receipt_info` after `in_app`): the other's fields
    /// where it has them, this one's where it does not. A later source adds facts (a refund, an expiry); it never
    /// erases one.
    public func merged(with later: ReceiptTransaction) -> ReceiptTransaction {
        var merged = later
        merged.purchaseDate = later.purchaseDate ?? purchaseDate
        merged.originalPurchaseDate = later.originalPurchaseDate ?? originalPurchaseDate
        merged.expiresDate = later.expiresDate ?? expiresDate
        merged.cancellationDate = later.cancellationDate ?? cancellationDate
        merged.cancellationReason = later.cancellationReason ?? cancellationReason
        merged.webOrderLineItemId = later.webOrderLineItemId ?? webOrderLineItemId
        merged.inAppOwnershipType = later.inAppOwnershipType ?? inAppOwnershipType
        merged.appAccountToken = later.appAccountToken ?? appAccountToken
        merged.subscriptionGroupIdentifier = later.subscriptionGroupIdentifier ?? subscriptionGroupIdentifier
        merged.isTrialPeriod = later.isTrialPeriod ?? isTrialPeriod
        merged.isInIntroOfferPeriod = later.isInIntroOfferPeriod ?? isInIntroOfferPeriod
        merged.isUpgraded = later.isUpgraded ?? isUpgraded
        merged.promotionalOfferId = later.promotionalOfferId ?? promotionalOfferId
        merged.offerCodeRefName = later.offerCodeRefName ?? offerCodeRefName
        return merged
    }

    enum CodingKeys: String, CodingKey {
        case transactionId = "transaction_id"
        case originalTransactionId = "original_transaction_id"
        case productId = "product_id"
        case quantity
        case purchaseDate = "purchase_date_ms"
        case originalPurchaseDate = "original_purchase_date_ms"
        case expiresDate = "expires_date_ms"
        case cancellationDate = "cancellation_date_ms"
        case cancellationReason = "cancellation_reason"
        case webOrderLineItemId = "web_order_line_item_id"
        case inAppOwnershipType = "in_app_ownership_type"
        case appAccountToken = "app_account_token"
        case subscriptionGroupIdentifier = "subscription_group_identifier"
        case isTrialPeriod = "is_trial_period"
        case isInIntroOfferPeriod = "is_in_intro_offer_period"
        case isUpgraded = "is_upgraded"
        case promotionalOfferId = "promotional_offer_id"
        case offerCodeRefName = "offer_code_ref_name"
    }

    /// Reads one element; throws only when `transaction_id` or `product_id` is missing or empty.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard let transactionId = container.lenientString(.transactionId), !transactionId.isEmpty else {
            throw DecodingError.keyNotFound(CodingKeys.transactionId, .init(
                codingPath: container.codingPath, debugDescription: "a transaction without transaction_id"))
        }
        guard let productId = container.lenientString(.productId), !productId.isEmpty else {
            throw DecodingError.keyNotFound(CodingKeys.productId, .init(
                codingPath: container.codingPath, debugDescription: "a transaction without product_id"))
        }
        self.init(
            transactionId: transactionId,
            originalTransactionId: container.lenientString(.originalTransactionId).flatMap { $0.isEmpty ? nil : $0 },
            productId: productId,
            quantity: container.lenientInteger(.quantity).flatMap { Int(exactly: $0) } ?? 1,
            purchaseDate: container.lenientMilliseconds(.purchaseDate),
            originalPurchaseDate: container.lenientMilliseconds(.originalPurchaseDate),
            expiresDate: container.lenientMilliseconds(.expiresDate),
            cancellationDate: container.lenientMilliseconds(.cancellationDate),
            cancellationReason: container.lenientString(.cancellationReason),
            webOrderLineItemId: container.lenientString(.webOrderLineItemId),
            inAppOwnershipType: container.lenientString(.inAppOwnershipType),
            appAccountToken: container.lenientString(.appAccountToken),
            subscriptionGroupIdentifier: container.lenientString(.subscriptionGroupIdentifier),
            isTrialPeriod: container.lenientFlag(.isTrialPeriod),
            isInIntroOfferPeriod: container.lenientFlag(.isInIntroOfferPeriod),
            isUpgraded: container.lenientFlag(.isUpgraded),
            promotionalOfferId: container.lenientString(.promotionalOfferId),
            offerCodeRefName: container.lenientString(.offerCodeRefName))
    }

    /// Writes the element as Apple does: every number, date and flag as a string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(transactionId, forKey: .transactionId)
        try container.encode(originalTransactionId, forKey: .originalTransactionId)
        try container.encode(productId, forKey: .productId)
        try container.encode(String(quantity), forKey: .quantity)
        try container.encodeMilliseconds(purchaseDate, forKey: .purchaseDate)
        try container.encodeMilliseconds(originalPurchaseDate, forKey: .originalPurchaseDate)
        try container.encodeMilliseconds(expiresDate, forKey: .expiresDate)
        try container.encodeMilliseconds(cancellationDate, forKey: .cancellationDate)
        try container.encodeIfPresent(cancellationReason, forKey: .cancellationReason)
        try container.encodeIfPresent(webOrderLineItemId, forKey: .webOrderLineItemId)
        try container.encodeIfPresent(inAppOwnershipType, forKey: .inAppOwnershipType)
        try container.encodeIfPresent(appAccountToken, forKey: .appAccountToken)
        try container.encodeIfPresent(subscriptionGroupIdentifier, forKey: .subscriptionGroupIdentifier)
        try container.encodeIfPresent(isTrialPeriod.map { $0 ? "true" : "false" }, forKey: .isTrialPeriod)
        try container.encodeIfPresent(isInIntroOfferPeriod.map { $0 ? "true" : "false" }, forKey: .isInIntroOfferPeriod)
        try container.encodeIfPresent(isUpgraded.map { $0 ? "true" : "false" }, forKey: .isUpgraded)
        try container.encodeIfPresent(promotionalOfferId, forKey: .promotionalOfferId)
        try container.encodeIfPresent(offerCodeRefName, forKey: .offerCodeRefName)
    }
}

extension KeyedDecodingContainer {
    /// A date written as milliseconds since 1970 (Apple's `*_ms` fields).
    func lenientMilliseconds(_ key: Key) -> Date? {
        lenientInteger(key).map { Date(timeIntervalSince1970: Double($0) / 1000) }
    }
}

extension KeyedEncodingContainer {
    /// Writes a date as Apple's `*_ms` fields do: milliseconds since 1970, as a string.
    mutating func encodeMilliseconds(_ date: Date?, forKey key: Key) throws {
        guard let date else { return }
        try encode(String(Int64((date.timeIntervalSince1970 * 1000).rounded())), forKey: key)
    }
}
