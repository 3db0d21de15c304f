/// The `status` of a verifyReceipt answer, with Apple's meaning and what the service does about it.
///
/// DESIGN.md's status table lives here and nowhere else: ``disposition`` says, for every code, whether the
/// receipt is verified, must be asked of the other environment, is invalid for good, or is worth asking again.
public struct VerifyReceiptStatus: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The code as Apple sends it: 0, or 21000–21199.
    public let code: Int

    public init(_ code: Int) {
        self.code = code
    }

    public init(from decoder: any Decoder) throws {
        code = try decoder.singleValueContainer().decode(Int.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(code)
    }

    /// The receipt is valid.
    public static let valid = VerifyReceiptStatus(0)
    /// The App Store could not read the JSON object the request sent (Apple: the request was not a POST).
    public static let unreadableRequest = VerifyReceiptStatus(21000)
    /// The data in `receipt-data` was malformed, or the service had a temporary issue.
    public static let malformedReceiptData = VerifyReceiptStatus(21002)
    /// The receipt could not be authenticated.
    public static let notAuthentic = VerifyReceiptStatus(21003)
    /// The shared secret sent does not match the one on file for the account.
    public static let wrongSharedSecret = VerifyReceiptStatus(21004)
    /// The receipt server was temporarily unable to provide the receipt.
    public static let serverUnavailable = VerifyReceiptStatus(21005)
    /// The receipt is valid but the subscription has expired (iOS 6-style receipts only; the receipt is decoded).
    public static let subscriptionExpired = VerifyReceiptStatus(21006)
    /// A sandbox receipt sent to production: ask the sandbox.
    public static let sandboxReceipt = VerifyReceiptStatus(21007)
    /// A production receipt sent to the sandbox: ask production.
    public static let productionReceipt = VerifyReceiptStatus(21008)
    /// An internal data access error at Apple.
    public static let internalDataAccessError = VerifyReceiptStatus(21009)
    /// The user account cannot be found or has been deleted.
    public static let accountNotFound = VerifyReceiptStatus(21010)

    /// Apple's "internal data access errors".
    public static let internalErrorRange = 21100...21199

    /// What the service does with an answer of this status.
    public enum Disposition: Sendable, Hashable {
        /// The receipt is valid: its transactions are read (0, and 21006 whose receipt Apple decodes too).
        case valid
        /// Ask the sandbox (21007).
        case askSandbox
        /// Ask production (21008).
        case askProduction
        /// The receipt will never verify: invalid, not retried (21000, 21003, 21004, 21010).
        case invalid
        /// Malformed data or a temporary issue, Apple cannot tell which: retried a few times, then invalid (21002).
        case malformed
        /// A temporary problem at Apple: retried on the schedule (21005, 21009, 21100–21199, and any code Apple
        /// does not document, since a code nobody knows says nothing against the receipt).
        case temporary
    }

    /// DESIGN.md's table: what an answer with this status means for the receipt. `is-retryable: true` makes any
    /// code but 0, 21006, 21007 and 21008 temporary (``VerifyReceiptAnswerRule`` applies it).
    public var disposition: Disposition {
        switch code {
        case 0, 21006: .valid
        case 21007: .askSandbox
        case 21008: .askProduction
        case 21000, 21003, 21004, 21010: .invalid
        case 21002: .malformed
        default: .temporary
        }
    }

    /// Apple's meaning of the code, as its verifyReceipt documentation words it.
    public var meaning: String {
        switch code {
        case 0: "The receipt is valid."
        case 21000: "The request to the App Store was not made using the HTTP POST request method."
        case 21001: "This status code is no longer sent by the App Store."
        case 21002: "The data in the receipt-data property was malformed or the service experienced a temporary issue."
        case 21003: "The receipt could not be authenticated."
        case 21004: "The shared secret you provided does not match the shared secret on file for your account."
        case 21005: "The receipt server was temporarily unable to provide the receipt."
        case 21006: "This receipt is valid but the subscription has expired."
        case 21007: "This receipt is from the test environment, but it was sent to the production environment for verification."
        case 21008: "This receipt is from the production environment, but it was sent to the test environment for verification."
        case 21009: "Internal data access error."
        case 21010: "The user account cannot be found or has been deleted."
        case Self.internalErrorRange: "Internal data access error."
        default: "A status the App Store does not document."
        }
    }

    public var description: String { "\(code) (\(meaning))" }
}
