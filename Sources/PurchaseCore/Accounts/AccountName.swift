import CatalogCore

/// An app's own name for one of its accounts (a user id, an e-mail address, whatever the app's backend keys its
/// users by), as `POST …/account-tokens` receives it. It is hashed and forgotten: never stored, logged or echoed.
///
/// Its description and mirror are redacted, so that interpolating it into a log line, an error or a dump cannot
/// leak it; only ``AccountTokens/derive(for:under:)`` reads ``text``.
public struct AccountName: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The account as the app sent it. Read it only to hash it.
    public let text: String

    /// The longest account accepted, in Unicode code points as JSON Schema's `maxLength` counts them (user ids
    /// and e-mail addresses, at most 254, are shorter).
    public static let characterLimit = 512

    /// The account, exactly as sent (no trimming, no case folding: the app's ids are its own), if it is 1 to
    /// ``characterLimit`` code points without NUL (the rules of every text field). The refusal names the field
    /// and the rule, never the value.
    public init(_ text: String, field: String = "account") throws(CatalogError) {
        let problems = TextRules.problems(text, field: field, length: 1...Self.characterLimit)
        guard problems.isEmpty else { throw .validationFailed(problems) }
        self.text = text
    }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "AccountName(<redacted>)" }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
