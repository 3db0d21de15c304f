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

extension FieldChange {
    /// The changes the JSON `text` holds, a list of `{"field", "old", "new"}` objects as the history stores them,
    /// or `nil` when it holds something else: what `JSONDecoder` makes of it (an absent or null `old` or `new` is
    /// `nil`, other members are ignored), read by ``CanonicalJSON``'s parser. The history's pages, exports and
    /// verification read a dozen changes per purchase event, and the decoder, which tries each type in turn for
    /// every value, took most of their time.
    public static func list(fromJSON text: String) -> [FieldChange]? {
        guard case .array(let items) = CanonicalJSON.parse(text) else { return nil }
        var changes: [FieldChange] = []
        changes.reserveCapacity(items.count)
        for item in items {
            guard case .object(let members) = item else { return nil }
            var field: String?
            var old: JSONValue?
            var new: JSONValue?
            for member in members {
                switch String(decoding: member.key, as: UTF8.self) {
                case "field":
                    guard case .string(let text) = member.value else { return nil }
                    field = String(decoding: text, as: UTF8.self)
                case "old":
                    guard let value = JSONValue(member.value) else { return nil }
                    old = value == .null ? nil : value
                case "new":
                    guard let value = JSONValue(member.value) else { return nil }
                    new = value == .null ? nil : value
                default: continue
                }
            }
            guard let field else { return nil }
            changes.append(FieldChange(field: field, old: old, new: new))
        }
        return changes
    }
}
