import Foundation

/// A JSON value, for the parts of history whose shape depends on the field (a change's old and new values).
public enum JSONValue: Sendable, Hashable, Codable {
    case null
    case bool(Bool)
    case integer(Int)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// The JSON form of an encodable value (a string, a price, a list of localizations...).
    public init(encoding value: some Encodable) {
        do {
            let data = try JSONEncoder().encode(value)
            self = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            // Every value passed here is one of the catalog's own Codable types, which always encode.
            preconditionFailure("cannot encode \(value) as JSON: \(error)")
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

extension JSONValue {
    /// The value as `JSONDecoder` decodes it: a number is an integer when it has an integral value an `Int`
    /// holds (`1.0` and `1e2` among them), else a `Double`; of a key written twice, the last.
    init?(_ value: CanonicalJSON.Value) {
        switch value {
        case .string(let text):
            self = .string(String(decoding: text, as: UTF8.self))
        case .array(let items):
            var values: [JSONValue] = []
            values.reserveCapacity(items.count)
            for item in items {
                guard let value = JSONValue(item) else { return nil }
                values.append(value)
            }
            self = .array(values)
        case .object(let members):
            var values: [String: JSONValue] = [:]
            for member in members {
                guard let value = JSONValue(member.value) else { return nil }
                values[String(decoding: member.key, as: UTF8.self)] = value
            }
            self = .object(values)
        case .literal(let text):
            switch String(decoding: text, as: UTF8.self) {
            case "null": self = .null
            case "true": self = .bool(true)
            case "false": self = .bool(false)
            case let number:
                if let integer = Int(number) {
                    self = .integer(integer)
                } else if let double = Double(number), double.isFinite {
                    self = Int(exactly: double).map(JSONValue.integer) ?? .number(double)
                } else {
                    return nil
                }
            }
        }
    }
}
