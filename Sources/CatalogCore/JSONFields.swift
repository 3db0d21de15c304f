/// The members of a JSON object, read by ``CanonicalJSON``'s parser and taken by name, as `JSONDecoder` would take
/// them: an absent member and a `null` are both "no value"; a number is an integer only when written as one.
///
/// For rows the database answers as JSON on a hot path: a signed transaction's answer is a submission with its
/// ledger row, forty members, and `Decodable`'s containers cost `JSONDecoder` more than the text did
/// (docs/performance.md, "A purchase's rows to and from PostgreSQL without `Codable`").
public struct JSONFields {
    /// Always an `.object`; kept whole because Swift 6.3 reports a circular reference for a stored array of its
    /// members.
    private let object: CanonicalJSON.Value

    /// The object `text` holds, or `nil` when it is not a JSON object.
    public init?(parsing text: String) {
        guard let value = CanonicalJSON.parse(text) else { return nil }
        self.init(value)
    }

    private init?(_ value: CanonicalJSON.Value) {
        guard case .object = value else { return nil }
        object = value
    }

    /// Why a member could not be read: it names the member and what it should have been.
    public struct Problem: Error, Hashable, CustomStringConvertible {
        public let key: String
        public let expected: String

        public init(key: String, expected: String) {
            self.key = key
            self.expected = expected
        }

        public var description: String { "the member \"\(key)\" is not \(expected)" }
    }

    /// The member's value; of a key written twice, the first (as `JSONDecoder`'s keyed containers); `nil` for an
    /// absent key or `null`.
    private func value(_ key: String) -> CanonicalJSON.Value? {
        guard case .object(let members) = object else { return nil }
        var key = key
        let found = key.withUTF8 { key in
            members.first { member in
                member.key.count == key.count && member.key.withUnsafeBufferPointer { $0.elementsEqual(key) }
            }
        }
        guard let found else { return nil }
        if case .literal(let text) = found.value, text.elementsEqual("null".utf8) { return nil }
        return found.value
    }

    public func string(ifPresent key: String) throws(Problem) -> String? {
        guard let value = value(key) else { return nil }
        guard case .string(let text) = value else { throw Problem(key: key, expected: "a string") }
        return String(decoding: text, as: UTF8.self)
    }

    public func string(_ key: String) throws(Problem) -> String {
        guard let text = try string(ifPresent: key) else { throw Problem(key: key, expected: "a string") }
        return text
    }

    public func integer<Integer: FixedWidthInteger>(ifPresent key: String, as type: Integer.Type = Integer.self)
        throws(Problem) -> Integer? {
        guard let value = value(key) else { return nil }
        guard case .literal(let text) = value, let integer = Integer(String(decoding: text, as: UTF8.self)) else {
            throw Problem(key: key, expected: "an integer of \(Integer.self)'s range")
        }
        return integer
    }

    public func integer<Integer: FixedWidthInteger>(_ key: String, as type: Integer.Type = Integer.self)
        throws(Problem) -> Integer {
        guard let integer = try integer(ifPresent: key, as: Integer.self) else {
            throw Problem(key: key, expected: "an integer of \(Integer.self)'s range")
        }
        return integer
    }

    public func bool(ifPresent key: String) throws(Problem) -> Bool? {
        guard let value = value(key) else { return nil }
        guard case .literal(let text) = value, text.elementsEqual("true".utf8) || text.elementsEqual("false".utf8)
        else { throw Problem(key: key, expected: "true or false") }
        return text.elementsEqual("true".utf8)
    }

    public func bool(_ key: String) throws(Problem) -> Bool {
        guard let bool = try bool(ifPresent: key) else { throw Problem(key: key, expected: "true or false") }
        return bool
    }

    /// An array of strings.
    public func strings(ifPresent key: String) throws(Problem) -> [String]? {
        try array(ifPresent: key, of: "strings") { item in
            guard case .string(let text) = item else { return nil }
            return String(decoding: text, as: UTF8.self)
        }
    }

    public func strings(_ key: String) throws(Problem) -> [String] {
        guard let strings = try strings(ifPresent: key) else {
            throw Problem(key: key, expected: "an array of strings")
        }
        return strings
    }

    /// An array of objects.
    public func objects(ifPresent key: String) throws(Problem) -> [JSONFields]? {
        try array(ifPresent: key, of: "objects", JSONFields.init)
    }

    /// The member's items, each made by `element`, which answers `nil` for an item that is not one of `what`.
    private func array<Element>(ifPresent key: String, of what: String,
                                _ element: (CanonicalJSON.Value) -> Element?) throws(Problem) -> [Element]? {
        guard let value = value(key) else { return nil }
        guard case .array(let items) = value else { throw Problem(key: key, expected: "an array of \(what)") }
        var elements: [Element] = []
        elements.reserveCapacity(items.count)
        for item in items {
            guard let made = element(item) else { throw Problem(key: key, expected: "an array of \(what)") }
            elements.append(made)
        }
        return elements
    }
}
