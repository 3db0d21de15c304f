/// The `version` of a file's format.
///
/// Kept for a faithful round trip only: it is not a feature gate. Real files
/// carry keys newer than their version, and versions go down between
/// commits, so the model is read by which keys are present.
public struct StoreKitFormatVersion: Sendable, Hashable, CustomStringConvertible {
    public var major: Int
    public var minor: Int
    /// Members this type does not model, written back unchanged.
    public var unknownKeys: StoreKitJSONObject

    public init(major: Int, minor: Int, unknownKeys: StoreKitJSONObject = [:]) {
        self.major = major
        self.minor = minor
        self.unknownKeys = unknownKeys
    }

    /// `"4.0"`.
    public var description: String { "\(major).\(minor)" }

    static let modeledKeys = ["major", "minor"]

    static func read(_ value: StoreKitJSON, at path: StoreKitJSONPath, log: IssueLog) -> StoreKitFormatVersion? {
        guard let reader = ObjectReader(value, at: path, log: log, modeledKeys: modeledKeys) else { return nil }
        let major = reader.required("major", Expect.nonNegativeInteger)
        let minor = reader.required("minor", Expect.nonNegativeInteger)
        guard let major, let minor else { return nil }
        return StoreKitFormatVersion(major: major, minor: minor, unknownKeys: reader.unknownKeys)
    }

    /// The JSON for this version, keys in Xcode's order.
    public func jsonValue() -> StoreKitJSON {
        var object = unknownKeys
        object["major"] = .integer(major)
        object["minor"] = .integer(minor)
        return .object(object.sortedForXcode())
    }
}
