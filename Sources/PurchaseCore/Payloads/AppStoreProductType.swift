import CatalogCore

/// The `type` of an App Store transaction, as Apple spells it ("Consumable", "Auto-Renewable Subscription", ...).
///
/// A value Apple adds later is kept as it came instead of failing the whole payload; `purchaseType` is then nil.
public struct AppStoreProductType: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let autoRenewableSubscription = Self(rawValue: "Auto-Renewable Subscription")
    public static let nonConsumable = Self(rawValue: "Non-Consumable")
    public static let consumable = Self(rawValue: "Consumable")
    public static let nonRenewingSubscription = Self(rawValue: "Non-Renewing Subscription")

    /// The catalog's type for Apple's, or nil for a value the catalog does not know. Apple has no type of its
    /// own for the catalog's free subscription, so nothing maps to `.freeSubscription`: a transaction for a
    /// catalog product of that type disagrees with the catalog.
    public var purchaseType: PurchaseType? {
        switch self {
        case .autoRenewableSubscription: .autoRenewableSubscription
        case .nonConsumable: .nonConsumable
        case .consumable: .consumable
        case .nonRenewingSubscription: .nonRenewingSubscription
        default: nil
        }
    }

    public var description: String { rawValue }
}
