/// A display name and description in one locale, for a product or a subscription group.
public struct StoreKitLocalization: Sendable, Equatable {
    /// As the file writes it, with an underscore: `en_US`, `zh_Hans`, or a bare language such as `ja`.
    public var locale: String
    /// May be empty; real files often leave it so.
    public var displayName: String
    /// May be empty; groups almost always leave it so.
    public var description: String
    /// Members this type does not model, written back unchanged.
    public var unknownKeys: StoreKitJSONObject

    public init(locale: String, displayName: String, description: String, unknownKeys: StoreKitJSONObject = [:]) {
        self.locale = locale
        self.displayName = displayName
        self.description = description
        self.unknownKeys = unknownKeys
    }

    static let modeledKeys = ["description", "displayName", "locale"]

    static func read(_ value: StoreKitJSON, at path: StoreKitJSONPath, log: IssueLog) -> StoreKitLocalization? {
        guard let reader = ObjectReader(value, at: path, log: log, modeledKeys: modeledKeys) else { return nil }
        let locale = reader.required("locale", Expect.string)
        let displayName = reader.required("displayName", Expect.string)
        let description = reader.required("description", Expect.string)
        guard let locale, let displayName, let description else { return nil }
        return StoreKitLocalization(
            locale: locale, displayName: displayName, description: description, unknownKeys: reader.unknownKeys)
    }

    /// The JSON for this localization, keys in Xcode's order.
    public func jsonValue() -> StoreKitJSON {
        var object = unknownKeys
        object["description"] = .string(description)
        object["displayName"] = .string(displayName)
        object["locale"] = .string(locale)
        return .object(object.sortedForXcode())
    }
}
