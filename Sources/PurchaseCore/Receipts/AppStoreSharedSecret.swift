/// An app's App Store shared secret (App Store Connect's "app-specific shared secret"), sent to verifyReceipt as
/// `password`.
///
/// Its description is redacted, so that interpolating it into a log line, an error or a dump prints
/// `<redacted>`, never the secret; only ``text`` reads it, for the one place that sends it.
public struct AppStoreSharedSecret: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The secret itself. Read it only to send it to the App Store.
    public let text: String

    public init(_ text: String) {
        self.text = text
    }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "AppStoreSharedSecret(<redacted>)" }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
