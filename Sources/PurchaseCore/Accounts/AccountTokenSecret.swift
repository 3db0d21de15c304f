/// The key under which an app's account tokens are made (``AccountTokens/derive(for:under:)``): 32 random bytes the
/// database makes when the app is created, read only to make tokens, never answered, logged or exported.
///
/// Its description and mirror are redacted, so that interpolating it into a log line or an error cannot leak it.
public struct AccountTokenSecret: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The key's bytes. Read them only to make tokens.
    public let bytes: [UInt8]

    /// How many bytes a secret has: HMAC-SHA-256's block is 64, its output 32; 32 random bytes is the strength of
    /// the digest itself.
    public static let length = 32

    /// `bytes` if there are ``length`` of them, else `nil`.
    public init?(bytes: [UInt8]) {
        guard bytes.count == Self.length else { return nil }
        self.bytes = bytes
    }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "AccountTokenSecret(<redacted>)" }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
