/// A subscription group: the auto-renewable subscriptions a customer can
/// switch between, holding at most one at a time.
public struct StoreKitSubscriptionGroup: Sendable, Equatable {
    /// Eight hex digits locally; App Store Connect's numeric id in synced files.
    public var id: String
    /// The reference name shown in Xcode.
    public var name: String
    /// The customer-facing group name per locale; `description` is usually empty. Often `[]`.
    public var localizations: [StoreKitLocalization]
    public var subscriptions: [StoreKitSubscription]
    /// Members this type does not model, written back unchanged.
    public var unknownKeys: StoreKitJSONObject

    public init(
        id: String = StoreKitConfiguration.generateIdentifier(),
        name: String,
        localizations: [StoreKitLocalization] = [],
        subscriptions: [StoreKitSubscription] = [],
        unknownKeys: StoreKitJSONObject = [:]
    ) {
        self.id = id
        self.name = name
        self.localizations = localizations
        self.subscriptions = subscriptions
        self.unknownKeys = unknownKeys
    }

    static let modeledKeys = ["id", "localizations", "name", "subscriptions"]

    static func read(_ value: StoreKitJSON, at path: StoreKitJSONPath, log: IssueLog) -> StoreKitSubscriptionGroup? {
        guard let reader = ObjectReader(value, at: path, log: log, modeledKeys: modeledKeys) else { return nil }
        let id = reader.required("id", Expect.string)
        let name = reader.required("name", Expect.string)
        let localizations = reader.required("localizations", Expect.array(of: StoreKitLocalization.read))
        let subscriptions = reader.required(
            "subscriptions", Expect.array(of: StoreKitSubscription.reading(groupID: id)))
        guard let id, let name, let localizations, let subscriptions else { return nil }
        return StoreKitSubscriptionGroup(
            id: id, name: name, localizations: localizations, subscriptions: subscriptions,
            unknownKeys: reader.unknownKeys)
    }

    /// The JSON for this group, keys in Xcode's order.
    public func jsonValue() -> StoreKitJSON {
        var object = unknownKeys
        object["id"] = .string(id)
        object["localizations"] = .array(localizations.map { $0.jsonValue() })
        object["name"] = .string(name)
        object["subscriptions"] = .array(subscriptions.map { $0.jsonValue() })
        return .object(object.sortedForXcode())
    }
}
