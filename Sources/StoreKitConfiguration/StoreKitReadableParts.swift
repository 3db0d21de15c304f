/// What can be read of a document that breaks the format: every product, subscription and group that reads
/// cleanly on its own, with its path.
///
/// A reader that checks more than the format (such as a catalog's own rules) uses it to report every problem
/// of an invalid file at once, and not only the format's: a file with a made-up product type in one product
/// and a display name that is too long in another has two problems.
public struct StoreKitReadableParts: Sendable {
    /// A consumable or non-consumable (in `products`) or a non-renewing subscription.
    public struct Product: Sendable {
        public let path: StoreKitJSONPath
        /// The array it is in (`products` or `nonRenewingSubscriptions`).
        public let array: String
        public let index: Int
        public let product: StoreKitProduct
    }

    /// A subscription group's own fields (`id`, `name`, `localizations`), with none of its subscriptions.
    public struct Group: Sendable {
        public let path: StoreKitJSONPath
        public let index: Int
        public let group: StoreKitSubscriptionGroup
    }

    /// An auto-renewable subscription and the index of its group.
    public struct Subscription: Sendable {
        public let path: StoreKitJSONPath
        public let groupIndex: Int
        public let index: Int
        public let subscription: StoreKitSubscription
    }

    public var products: [Product] = []
    public var groups: [Group] = []
    public var subscriptions: [Subscription] = []
}

extension StoreKitConfiguration {
    /// The parts of `json` that read cleanly on their own; see ``StoreKitReadableParts``.
    public static func readableParts(of json: StoreKitJSON) -> StoreKitReadableParts {
        var parts = StoreKitReadableParts()
        guard let root = json.objectValue else { return parts }
        let arrays: [(String, [StoreKitProductType])] = [
            ("products", [.consumable, .nonConsumable]), ("nonRenewingSubscriptions", [.nonRenewingSubscription]),
        ]
        for (key, allowed) in arrays {
            for (index, value) in (root[key]?.arrayValue ?? []).enumerated() {
                let path = StoreKitJSONPath.root.appending(key).appending(index)
                if let product = StoreKitProduct.reading(allowed: allowed)(value, path, IssueLog()) {
                    parts.products.append(.init(path: path, array: key, index: index, product: product))
                }
            }
        }
        for (groupIndex, value) in (root["subscriptionGroups"]?.arrayValue ?? []).enumerated() {
            let groupPath = StoreKitJSONPath.root.appending("subscriptionGroups").appending(groupIndex)
            let groupID = value["id"]?.stringValue
            if var shell = value.objectValue {
                shell["subscriptions"] = .array([])
                if let group = StoreKitSubscriptionGroup.read(.object(shell), at: groupPath, log: IssueLog()) {
                    parts.groups.append(.init(path: groupPath, index: groupIndex, group: group))
                }
            }
            for (index, subscription) in (value["subscriptions"]?.arrayValue ?? []).enumerated() {
                let path = groupPath.appending("subscriptions").appending(index)
                if let read = StoreKitSubscription.reading(groupID: groupID)(subscription, path, IssueLog()) {
                    parts.subscriptions.append(.init(path: path, groupIndex: groupIndex, index: index, subscription: read))
                }
            }
        }
        return parts
    }
}
