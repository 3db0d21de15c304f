import CatalogCore
import OpenAPIRuntime

extension OpenAPIValueContainer {
    /// A change's value as the API's free-form JSON: the values `JSONDecoder` would read from the value's JSON
    /// text, made directly (a page of history has hundreds of them, and the round trip through text was a
    /// fifth of its time).
    init(_ value: JSONValue) throws {
        try self.init(unvalidatedValue: value.openAPIValue)
    }
}

extension JSONValue {
    /// The value as the types `OpenAPIValueContainer` holds: `nil`, `Bool`, `Int`, `Double`, `String`, and arrays
    /// and dictionaries of them.
    fileprivate var openAPIValue: (any Sendable)? {
        switch self {
        case .null: nil
        case .bool(let value): value
        case .integer(let value): value
        case .number(let value): value
        case .string(let value): value
        case .array(let items): items.map(\.openAPIValue)
        case .object(let members): members.mapValues(\.openAPIValue)
        }
    }
}
