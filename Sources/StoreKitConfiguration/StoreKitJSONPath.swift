/// Where a value sits in a document, printed as
/// `subscriptionGroups[0].subscriptions[2].localizations[0].displayName`.
///
/// A key that is not a plain identifier is printed in brackets and quotes,
/// `products[0][" productID"]`, so that a stray space stays visible.
public struct StoreKitJSONPath: Sendable, Hashable, CustomStringConvertible {
    public enum Component: Sendable, Hashable {
        case key(String)
        case index(Int)
    }

    public var components: [Component]

    public init(_ components: [Component] = []) {
        self.components = components
    }

    /// The document itself.
    public static let root = StoreKitJSONPath()

    public func appending(_ key: String) -> StoreKitJSONPath {
        StoreKitJSONPath(components + [.key(key)])
    }

    public func appending(_ index: Int) -> StoreKitJSONPath {
        StoreKitJSONPath(components + [.index(index)])
    }

    /// The path in dotted form; the root is the empty string.
    public var description: String {
        var text = ""
        for component in components {
            switch component {
            case .index(let index):
                text += "[\(index)]"
            case .key(let key) where Self.isPlainIdentifier(key):
                text += text.isEmpty ? key : "." + key
            case .key(let key):
                text += "[" + XcodeJSONWriter.quoted(key) + "]"
            }
        }
        return text
    }

    private static func isPlainIdentifier(_ key: String) -> Bool {
        guard let first = key.unicodeScalars.first, !isDigit(first) else { return false }
        return key.unicodeScalars.allSatisfy { scalar in
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9", "_": true
            default: false
            }
        }
    }

    private static func isDigit(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value >= 0x30 && scalar.value <= 0x39
    }
}
