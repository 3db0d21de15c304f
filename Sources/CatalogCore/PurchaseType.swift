/// The five kinds of in-app purchase, and the rules in which they differ.
public enum PurchaseType: String, CaseIterable, Sendable, Codable {
    case consumable = "CONSUMABLE"
    case nonConsumable = "NON_CONSUMABLE"
    case autoRenewableSubscription = "AUTO_RENEWABLE_SUBSCRIPTION"
    case freeSubscription = "FREE_SUBSCRIPTION"
    case nonRenewingSubscription = "NON_RENEWING_SUBSCRIPTION"

    /// Every type but the free subscription needs a price before approval; the free subscription's is zero.
    public var isPaid: Bool { self != .freeSubscription }

    /// Which amounts the type's prices may have (DESIGN.md "Purchase types"; the database's
    /// `products_price_by_type` repeats it).
    public var priceRule: PriceRule {
        switch self {
        case .freeSubscription: .zero
        // A free non-consumable is how a paid app offers a free trial (App Store Review Guideline 3.1.1).
        case .nonConsumable: .zeroOrAbove
        case .consumable, .autoRenewableSubscription, .nonRenewingSubscription: .aboveZero
        }
    }

    /// Whether `familyShareable` may be turned on.
    public var allowsFamilySharing: Bool {
        self == .nonConsumable || self == .autoRenewableSubscription
    }

    /// Auto-renewable subscriptions alone have a group, a level, a store-managed duration and offers.
    public var isGroupedSubscription: Bool { self == .autoRenewableSubscription }

    /// The free subscription exists only in Newsstand apps, at most one per app.
    public var requiresNewsstandApp: Bool { self == .freeSubscription }

    /// How long a localization's description may be: App Store Connect allows auto-renewable subscriptions
    /// longer descriptions than other in-app purchases.
    public var descriptionLength: ClosedRange<Int> {
        self == .autoRenewableSubscription ? Limits.subscriptionDescription : Limits.description
    }
}

/// Which amounts a purchase type's prices may have.
public enum PriceRule: Sendable, Hashable {
    /// Above zero: consumables, auto-renewable and non-renewing subscriptions.
    case aboveZero
    /// Zero or above: a non-consumable may be free.
    case zeroOrAbove
    /// Exactly zero: the free subscription.
    case zero
}
