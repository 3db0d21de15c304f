/// The event an App Store Server Notification V2 reports (Apple's `notificationType`, NotificationTypeV2).
///
/// Kept as a string: a type Apple adds later is recorded as it came, never a reason to refuse a notification.
public struct NotificationType: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let subscribed = Self(rawValue: "SUBSCRIBED")
    public static let didChangeRenewalPref = Self(rawValue: "DID_CHANGE_RENEWAL_PREF")
    public static let didChangeRenewalStatus = Self(rawValue: "DID_CHANGE_RENEWAL_STATUS")
    public static let offerRedeemed = Self(rawValue: "OFFER_REDEEMED")
    public static let didRenew = Self(rawValue: "DID_RENEW")
    public static let expired = Self(rawValue: "EXPIRED")
    public static let didFailToRenew = Self(rawValue: "DID_FAIL_TO_RENEW")
    public static let gracePeriodExpired = Self(rawValue: "GRACE_PERIOD_EXPIRED")
    public static let priceIncrease = Self(rawValue: "PRICE_INCREASE")
    public static let refund = Self(rawValue: "REFUND")
    public static let refundDeclined = Self(rawValue: "REFUND_DECLINED")
    public static let refundReversed = Self(rawValue: "REFUND_REVERSED")
    public static let consumptionRequest = Self(rawValue: "CONSUMPTION_REQUEST")
    public static let renewalExtended = Self(rawValue: "RENEWAL_EXTENDED")
    public static let renewalExtension = Self(rawValue: "RENEWAL_EXTENSION")
    public static let revoke = Self(rawValue: "REVOKE")
    public static let test = Self(rawValue: "TEST")
    public static let externalPurchaseToken = Self(rawValue: "EXTERNAL_PURCHASE_TOKEN")
    public static let oneTimeCharge = Self(rawValue: "ONE_TIME_CHARGE")

    public var description: String { rawValue }
}

/// What more a notification says about its event (Apple's `subtype`), kept as a string like `NotificationType`.
public struct NotificationSubtype: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let initialBuy = Self(rawValue: "INITIAL_BUY")
    public static let resubscribe = Self(rawValue: "RESUBSCRIBE")
    public static let downgrade = Self(rawValue: "DOWNGRADE")
    public static let upgrade = Self(rawValue: "UPGRADE")
    public static let autoRenewEnabled = Self(rawValue: "AUTO_RENEW_ENABLED")
    public static let autoRenewDisabled = Self(rawValue: "AUTO_RENEW_DISABLED")
    public static let voluntary = Self(rawValue: "VOLUNTARY")
    public static let billingRetry = Self(rawValue: "BILLING_RETRY")
    public static let priceIncrease = Self(rawValue: "PRICE_INCREASE")
    public static let gracePeriod = Self(rawValue: "GRACE_PERIOD")
    public static let pending = Self(rawValue: "PENDING")
    public static let accepted = Self(rawValue: "ACCEPTED")
    public static let billingRecovery = Self(rawValue: "BILLING_RECOVERY")
    public static let productNotForSale = Self(rawValue: "PRODUCT_NOT_FOR_SALE")
    public static let summary = Self(rawValue: "SUMMARY")
    public static let failure = Self(rawValue: "FAILURE")
    public static let unreported = Self(rawValue: "UNREPORTED")

    public var description: String { rawValue }
}
