/// One way a document breaks the `.storekit` format, and where.
///
/// Messages name the rule and quote only identifiers, types, periods and
/// prices, never a `privateKey`, so issues are safe to show and log.
public struct StoreKitValidationIssue: Sendable, Hashable, CustomStringConvertible {
    public let path: StoreKitJSONPath
    public let message: String

    public init(path: StoreKitJSONPath, message: String) {
        self.path = path
        self.message = message
    }

    /// `path: message`, or the message alone for the document itself.
    public var description: String {
        path.components.isEmpty ? message : "\(path): \(message)"
    }
}
