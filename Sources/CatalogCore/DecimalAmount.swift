/// A non-negative decimal amount, kept exactly as written (`"0.99"`, `"2.00"`, `"99"`): never a binary float.
///
/// The text is the value; PostgreSQL's `numeric` keeps the same scale, so `"2.00"` comes back as `"2.00"`.
/// Input arrives as text and is checked with the rest of a product (``isValid``), so that every problem of a
/// request is reported at once.
public struct DecimalAmount: Sendable, Hashable, Codable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let text: String

    public init(_ text: String) { self.text = text }

    public init(stringLiteral text: String) { self.text = text }

    /// 1–10 integer digits, then optionally `.` and 1–6 fraction digits.
    public var isValid: Bool {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let integer = parts.first, Limits.amountIntegerDigits.contains(integer.count),
              integer.allSatisfy({ $0.isASCII && $0.isNumber })
        else { return false }
        guard parts.count == 2 else { return true }
        return Limits.amountFractionDigits.contains(parts[1].count) && parts[1].allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// Whether the amount is zero, however it is written (`"0"`, `"0.00"`).
    public var isZero: Bool { text.allSatisfy { $0 == "0" || $0 == "." } }

    public var description: String { text }

    public init(from decoder: any Decoder) throws {
        text = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }

    func problems(field: String) -> [FieldProblem] {
        isValid ? [] : [FieldProblem(
            field: field, rule: "pattern",
            message: "\"\(text.prefix(40))\" is not a decimal amount such as \"0.99\" (at most 10 integer and 6 fraction digits)")]
    }
}
