import CatalogAPI
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

extension Components.Schemas.FieldChange {
    /// A change as the API writes it: in history events and in the subscription groups of catalog plans.
    init(_ change: FieldChange) throws {
        self.init(field: change.field, old: try change.old.map(OpenAPIValueContainer.init),
                  new: try change.new.map(OpenAPIValueContainer.init))
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
