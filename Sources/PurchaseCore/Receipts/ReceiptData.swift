/// An app receipt as StoreKit gives it (`appStoreReceiptURL`'s contents, base64), sent to verifyReceipt as
/// `receipt-data`.
///
/// A receipt is a customer's proof of purchase: it is never logged. Its description names only its length.
public struct ReceiptData: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The base64 text, as the client app sent it.
    public let base64: String

    public init(base64: String) {
        self.base64 = base64
    }

    public var description: String { "<receipt of \(base64.utf8.count) characters>" }
    public var debugDescription: String { "ReceiptData(\(description))" }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
