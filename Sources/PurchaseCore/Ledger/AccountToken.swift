import Foundation

/// The token of an app's account, as a purchase carries it: never the account itself, but a one-way token the
/// app's server gives out. Two layouts are accepted as they are: a UUID (StoreKit 2's `appAccountToken`) and the
/// seed's `applicationUsername` layout (64 hex digits, a dash after every 4 bytes). Both are compared without
/// regard to case and kept in lowercase, the case Apple writes `appAccountToken` in.
public struct AccountToken: Sendable, Hashable, CustomStringConvertible {
    /// The token in lowercase.
    public let text: String

    /// `text` if it is a token in one of the two layouts, else `nil`.
    public init?(parsing text: String) {
        let lowered = text.lowercased()
        guard Self.isUUID(lowered) || Self.isApplicationUsername(lowered) else { return nil }
        self.text = lowered
    }

    public var description: String { text }

    /// What an account token must look like, for error messages.
    public static let rule = "a UUID or 64 hex digits with a dash after every 8 (the applicationUsername layout)"

    private static func isUUID(_ text: String) -> Bool {
        groups(of: text) == [8, 4, 4, 4, 12]
    }

    private static func isApplicationUsername(_ text: String) -> Bool {
        groups(of: text) == Array(repeating: 8, count: 8)
    }

    /// The lengths of the dash-separated groups of lowercase hex digits, or `[]` if anything else is there.
    private static func groups(of text: String) -> [Int] {
        var groups: [Int] = []
        var current = 0
        for byte in text.utf8 {
            if byte == UInt8(ascii: "-") {
                groups.append(current)
                current = 0
            } else if (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte) {
                current += 1
            } else {
                return []
            }
        }
        groups.append(current)
        return groups
    }
}
