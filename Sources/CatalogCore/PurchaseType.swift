/// The five kinds of in-app purchase, and the rules in which they differ.
public enum PurchaseType: String, CaseIterable, Sendable, Codable {
    case consumable = "CONSUMABLE"
    case nonConsumable = "NON_CONSUMABLE"
    case autoRenewableSubscription = "AUTO_RENEWABLE_SUBSCRIPTION"
    case freeSubscription = "FREE_SUBSCRIPTION"
    case nonRenewingSubscription = "NON_RENEWING_SUBSCRIPTION"

    /// Every type but the free subscription is sold for a price above zero; the free subscription's is zero.
    public var isPaid: Bool { self != .freeSubscription }

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
