/// The `type` of a product, as the four values real files use.
///
/// Each type lives in one array of the file; see ``StoreKitProduct`` and
/// ``StoreKitSubscription``. Apple's legacy free subscription has no type in
/// the format, so an exporter has to skip or report it.
public enum StoreKitProductType: String, Sendable, CaseIterable {
    /// In `products`.
    case consumable = "Consumable"
    /// In `products`.
    case nonConsumable = "NonConsumable"
    /// In `nonRenewingSubscriptions`.
    case nonRenewingSubscription = "NonRenewingSubscription"
    /// Auto-renewable; only in `subscriptionGroups[].subscriptions`.
    case recurringSubscription = "RecurringSubscription"

    /// Where products of this type are written.
    var placement: String {
        switch self {
        case .consumable, .nonConsumable: "products"
        case .nonRenewingSubscription: "nonRenewingSubscriptions"
        case .recurringSubscription: "subscriptionGroups[].subscriptions"
        }
    }

    /// Reads `type` and checks that it belongs in the array being read.
    static func reading(allowed: [StoreKitProductType]) -> Reading<StoreKitProductType> {
        { value, path, log in
            guard let text = Expect.string(value, at: path, log: log) else { return nil }
            guard let type = StoreKitProductType(rawValue: text) else {
                let expected = allowed == [.recurringSubscription]
                    ? "RecurringSubscription"
                    : "one of Consumable, NonConsumable, NonRenewingSubscription"
                log.add("unknown product type \(XcodeJSONWriter.quoted(text)); expected \(expected)", at: path)
                return nil
            }
            guard allowed.contains(type) else {
                log.add("\(type.rawValue) is only allowed inside \(type.placement)", at: path)
                return nil
            }
            return type
        }
    }
}
