import Crypto
import Foundation

/// A bearer token for an API key: 32 random bytes, shown once; only its SHA-256 is stored.
///
/// The token is random and long, so a fast hash is enough: there is no password to guess behind it.
public struct KeyToken: Sendable {
    /// What every token starts with, so that a leaked one is easy to recognise and search for.
    public static let prefix = "iapk_"

    public let text: String

    /// A new random token.
    public static func generate() -> KeyToken {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let encoded = Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        return KeyToken(text: prefix + encoded)
    }

    public init(text: String) { self.text = text }

    /// The SHA-256 under which the key is stored and looked up.
    public var hash: [UInt8] { Array(SHA256.hash(data: Data(text.utf8))) }
}
