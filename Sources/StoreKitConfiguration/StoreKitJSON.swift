/// A JSON document tree that keeps what a `.storekit` round trip needs and
/// `JSONSerialization` loses: the order of object keys as read, and whether a
/// number was written as an integer (`1`) or as a double (`726861732.61725104`).
///
/// `==` is strict: key order and integer-versus-double count. Use
/// ``isEquivalent(to:)`` to compare two documents as JSON data.
public enum StoreKitJSON: Sendable, Hashable {
    case null
    case bool(Bool)
    /// A number written without fraction or exponent that fits in `Int`.
    case integer(Int)
    /// Any other number. The original text is not kept: Xcode writes doubles
    /// with `%.17g`, which reads back to the same `Double` and prints back to
    /// the same text, so the value alone reproduces Xcode-written files.
    case double(Double)
    case string(String)
    case array([StoreKitJSON])
    case object(StoreKitJSONObject)

    /// Parses UTF-8 JSON, such as the contents of a `.storekit` file.
    ///
    /// Accepts any JSON layout (minified, `": "` separators, no trailing
    /// newline) and a leading byte order mark. Rejects duplicate keys in one
    /// object, because only one of the values could survive a round trip.
    public init(parsing bytes: some Collection<UInt8>) throws(StoreKitJSONSyntaxError) {
        var parser = JSONParser(bytes: Array(bytes))
        self = try parser.parseDocument()
    }

    /// Parses JSON text.
    public init(parsing text: String) throws(StoreKitJSONSyntaxError) {
        try self.init(parsing: text.utf8)
    }
}

// MARK: - Reading values

extension StoreKitJSON {
    public var stringValue: String? {
        if case .string(let value) = self { value } else { nil }
    }

    public var boolValue: Bool? {
        if case .bool(let value) = self { value } else { nil }
    }

    /// The value of an integer, or of a double with no fractional part that fits in `Int`.
    public var intValue: Int? {
        switch self {
        case .integer(let value): value
        case .double(let value): Int(exactly: value)
        default: nil
        }
    }

    /// The value of any number.
    public var doubleValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    public var arrayValue: [StoreKitJSON]? {
        if case .array(let value) = self { value } else { nil }
    }

    public var objectValue: StoreKitJSONObject? {
        if case .object(let value) = self { value } else { nil }
    }

    public var isNull: Bool { self == .null }

    /// The member `key` of an object; `nil` for a missing key or a value that is not an object.
    public subscript(key: String) -> StoreKitJSON? {
        objectValue?[key]
    }

    /// The element at `index` of an array; `nil` when out of range or not an array.
    public subscript(index: Int) -> StoreKitJSON? {
        guard let array = arrayValue, array.indices.contains(index) else { return nil }
        return array[index]
    }

    /// The kind of value with its article, as validation messages name it ("a string", "an object").
    var kindDescription: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .integer, .double: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

// MARK: - Semantic comparison

extension StoreKitJSON {
    /// Whether both values hold the same JSON data: object key order is
    /// ignored and numbers compare by value, so `1.0` matches `1`.
    ///
    /// This is the comparison to use between a hand-written or minified file
    /// and what the Xcode writer makes of it, since Xcode re-sorts keys and
    /// prints `748108800.0` as `748108800`.
    public func isEquivalent(to other: StoreKitJSON) -> Bool {
        switch (self, other) {
        case (.null, .null):
            return true
        case (.bool(let a), .bool(let b)):
            return a == b
        case (.string(let a), .string(let b)):
            return a == b
        case (.integer(let a), .integer(let b)):
            return a == b
        case (.double(let a), .double(let b)):
            return a == b
        case (.integer(let a), .double(let b)), (.double(let b), .integer(let a)):
            // Exact comparison keeps large integers from matching a rounded double.
            return Int(exactly: b) == a
        case (.array(let a), .array(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.isEquivalent(to: $1) }
        case (.object(let a), .object(let b)):
            return a.count == b.count && a.allSatisfy { key, value in
                b[key].map { value.isEquivalent(to: $0) } ?? false
            }
        default:
            return false
        }
    }
}

// MARK: - Literals

/// There is deliberately no `nil` literal: `object["key"] = nil` removes a
/// member, so JSON `null` is always spelled `.null`.
extension StoreKitJSON: ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: StoreKitJSON...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, StoreKitJSON)...) {
        self = .object(StoreKitJSONObject(elements))
    }
}

// MARK: - Printing

extension StoreKitJSON: CustomStringConvertible, CustomDebugStringConvertible {
    /// Compact JSON, with the value of every `privateKey` member replaced by
    /// `"<redacted>"`: a parsed `.storekit` file embeds the offer-signing key
    /// in `subscriptionOffersKeyPair`, and it must not reach logs.
    public var description: String {
        var text = ""
        writeCompact(to: &text)
        return text
    }

    public var debugDescription: String { description }

    static let redactedKeys: Set<String> = ["privateKey"]
    static let redactionMarker = "<redacted>"

    private func writeCompact(to text: inout String) {
        switch self {
        case .array(let elements):
            text += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { text += "," }
                element.writeCompact(to: &text)
            }
            text += "]"
        case .object(let object):
            text += "{"
            for (index, (key, value)) in object.enumerated() {
                if index > 0 { text += "," }
                text += XcodeJSONWriter.quoted(key) + ":"
                if Self.redactedKeys.contains(key) {
                    text += XcodeJSONWriter.quoted(Self.redactionMarker)
                } else {
                    value.writeCompact(to: &text)
                }
            }
            text += "}"
        default:
            text += XcodeJSONWriter.scalarText(self)
        }
    }
}
