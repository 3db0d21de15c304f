/// The local key Xcode generates for signing promotional offers in test
/// sessions (`subscriptionOffersKeyPair`, formats 1.1 to 4.0).
///
/// ``privateKey`` is a real EC P-256 private key in base64 PKCS#8. It is a
/// throwaway test key, but still a secret: every textual form of this type
/// (`description`, `debugDescription`, `dump`, string interpolation) shows
/// only the key id.
public struct StoreKitOffersKeyPair: Sendable, Equatable {
    public var id: String
    public var privateKey: String
    /// Members this type does not model, written back unchanged.
    public var unknownKeys: StoreKitJSONObject

    public init(id: String, privateKey: String, unknownKeys: StoreKitJSONObject = [:]) {
        self.id = id
        self.privateKey = privateKey
        self.unknownKeys = unknownKeys
    }

    static let modeledKeys = ["id", "privateKey"]

    static func read(_ value: StoreKitJSON, at path: StoreKitJSONPath, log: IssueLog) -> StoreKitOffersKeyPair? {
        guard let reader = ObjectReader(value, at: path, log: log, modeledKeys: modeledKeys) else { return nil }
        let id = reader.required("id", Expect.string)
        let privateKey = reader.required("privateKey", Expect.string)
        guard let id, let privateKey else { return nil }
        return StoreKitOffersKeyPair(id: id, privateKey: privateKey, unknownKeys: reader.unknownKeys)
    }

    /// The JSON for this key pair, keys in Xcode's order. Holds the private key.
    public func jsonValue() -> StoreKitJSON {
        var object = unknownKeys
        object["id"] = .string(id)
        object["privateKey"] = .string(privateKey)
        return .object(object.sortedForXcode())
    }
}

extension StoreKitOffersKeyPair: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        "StoreKitOffersKeyPair(id: \(XcodeJSONWriter.quoted(id)), privateKey: \(StoreKitJSON.redactionMarker))"
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror {
        Mirror(self, children: ["id": id, "privateKey": StoreKitJSON.redactionMarker], displayStyle: .struct)
    }
}
