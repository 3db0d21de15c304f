import Foundation

/// A JSON object written member by member, in the order added, as `JSONEncoder` writes a type's synthesized
/// encoding: a `nil` value is left out, strings are escaped as ``CanonicalJSON`` escapes them.
///
/// For the parameters the database reads as JSON on a hot path: a signed transaction's item is two dozen members,
/// and `Encodable`'s containers cost `JSONEncoder` more than the text did (docs/performance.md, "A purchase's rows
/// to and from PostgreSQL without `Codable`").
public struct JSONObjectWriter {
    /// The object so far, without its closing brace.
    private var bytes: [UInt8] = [UInt8(ascii: "{")]

    public init() {}

    /// The object's text.
    public var text: String { String(decoding: utf8, as: UTF8.self) }

    /// The object's text as UTF-8.
    public var utf8: [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + 1)
        append(to: &output)
        return output
    }

    /// The objects as a JSON array's text.
    public static func array(_ objects: [JSONObjectWriter]) -> String {
        var output: [UInt8] = []
        appendArray(objects, to: &output)
        return String(decoding: output, as: UTF8.self)
    }

    public mutating func add(_ key: String, _ value: String?) {
        guard let value else { return }
        addKey(key)
        CanonicalJSON.appendQuoted(value.utf8, to: &bytes)
    }

    public mutating func add(_ key: String, _ value: (some BinaryInteger)?) {
        guard let value else { return }
        addKey(key)
        bytes.append(contentsOf: String(value).utf8)
    }

    public mutating func add(_ key: String, _ value: Bool?) {
        guard let value else { return }
        addKey(key)
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    /// A date as the API writes it (``RFC3339Text/milliseconds(_:)``).
    public mutating func add(_ key: String, _ date: Date?) {
        guard let date else { return }
        add(key, RFC3339Text.milliseconds(date))
    }

    public mutating func add(_ key: String, strings: [String]) {
        addKey(key)
        bytes.append(UInt8(ascii: "["))
        for (index, string) in strings.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            CanonicalJSON.appendQuoted(string.utf8, to: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    public mutating func add(_ key: String, _ object: JSONObjectWriter?) {
        guard let object else { return }
        addKey(key)
        object.append(to: &bytes)
    }

    public mutating func add(_ key: String, _ objects: [JSONObjectWriter]?) {
        guard let objects else { return }
        addKey(key)
        Self.appendArray(objects, to: &bytes)
    }

    /// Appends the closed object to `output`, without a copy of its own.
    private func append(to output: inout [UInt8]) {
        output.append(contentsOf: bytes)
        output.append(UInt8(ascii: "}"))
    }

    private mutating func addKey(_ key: String) {
        if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
        CanonicalJSON.appendQuoted(key.utf8, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
    }

    private static func appendArray(_ objects: [JSONObjectWriter], to output: inout [UInt8]) {
        output.append(UInt8(ascii: "["))
        for (index, object) in objects.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            object.append(to: &output)
        }
        output.append(UInt8(ascii: "]"))
    }
}
