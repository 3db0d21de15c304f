import Foundation

/// An endpoint's signing secret: 32 random bytes, written `whsec_` and their base64 as the Standard Webhooks
/// specification does. Shown once, when the endpoint is created; every description of it is redacted, so that
/// an interpolation into a log line, an error or an answer cannot leak it.
public struct WebhookSecret: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    public static let prefix = "whsec_"

    /// The key of the HMAC.
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// A new secret from the system's random source.
    public static func generate() -> WebhookSecret {
        var generator = SystemRandomNumberGenerator()
        return WebhookSecret(bytes: (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// `whsec_` and the base64 of the bytes: what the creator is shown once and a receiver configures.
    public var text: String { Self.prefix + Data(bytes).base64EncodedString() }

    public var description: String { "whsec_<redacted>" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: []) }
}
