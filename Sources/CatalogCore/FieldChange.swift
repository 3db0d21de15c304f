/// One field an edit changed, with its value before and after (`nil`: no value).
public struct FieldChange: Sendable, Hashable, Codable {
    public let field: String
    public let old: JSONValue?
    public let new: JSONValue?

    public init(field: String, old: JSONValue?, new: JSONValue?) {
        self.field = field
        self.old = old
        self.new = new
    }

    /// The change of `field` from `old` to `new`, or `nil` when the two are equal.
    public init?<Value: Encodable & Equatable>(field: String, old: Value?, new: Value?) {
        guard old != new else { return nil }
        self.init(field: field, old: Self.json(old), new: Self.json(new))
    }

    private static func json(_ value: (some Encodable)?) -> JSONValue? {
        guard let value else { return nil }
        return JSONValue(encoding: value)
    }
}
