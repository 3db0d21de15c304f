/// One field at fault and the rule it breaks, e.g. `localizations[0].displayName` / `maxLength`.
public struct FieldProblem: Sendable, Hashable, Codable, CustomStringConvertible {
    /// A JSON path into the request or the product.
    public let field: String
    /// A stable name of the rule (`required`, `maxLength`, `pattern`, `positive`, ...).
    public let rule: String
    /// One sentence for people.
    public let message: String

    public init(field: String, rule: String, message: String) {
        self.field = field
        self.rule = rule
        self.message = message
    }

    public var description: String { "\(field): \(message)" }
}
