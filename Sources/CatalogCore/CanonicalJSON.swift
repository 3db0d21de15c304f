import Foundation

/// The canonical text of a JSON value, as the history's hashes cover it: no insignificant whitespace, object
/// keys sorted by their UTF-8 bytes (code point order), strings escaped only where JSON requires (`"`, `\`,
/// and control characters: `\b \f \n \r \t`, others as `\u00xx` in lowercase), everything else as raw UTF-8,
/// numbers exactly as written. This is PostgreSQL's `iap_canonical_json`, so either side can recompute the
/// chain; docs/history.md describes it for auditors who recompute it with tools of their own.
public enum CanonicalJSON {
    /// The canonical text of the JSON `text`, or `nil` when it is not JSON.
    public static func canonical(_ text: String) -> String? {
        var parser = Parser(bytes: Array(text.utf8))
        guard let value = parser.parseValue(), parser.isAtEnd else { return nil }
        var output = ""
        write(value, to: &output)
        return output
    }

    /// A JSON string literal for `value`.
    public static func quoted(_ value: String) -> String {
        var output = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\u{8}": output += "\\b"
            case "\u{C}": output += "\\f"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output + "\""
    }

    enum Value {
        case literal(String)
        case string(String)
        case array([Value])
        case object([(String, Value)])
    }

    static func write(_ value: Value, to output: inout String) {
        switch value {
        case .literal(let text): output += text
        case .string(let text): output += quoted(text)
        case .array(let items):
            output += "["
            for (index, item) in items.enumerated() {
                if index > 0 { output += "," }
                write(item, to: &output)
            }
            output += "]"
        case .object(let members):
            output += "{"
            for (index, member) in members.sorted(by: { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }).enumerated() {
                if index > 0 { output += "," }
                output += quoted(member.0) + ":"
                write(member.1, to: &output)
            }
            output += "}"
        }
    }

    /// A small strict JSON reader that keeps numbers as written.
    struct Parser {
        let bytes: [UInt8]
        var position = 0
        var depth = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        var isAtEnd: Bool {
            mutating get {
                skipWhitespace()
                return position == bytes.count
            }
        }

        mutating func parseValue() -> Value? {
            skipWhitespace()
            guard position < bytes.count, depth < 512 else { return nil }
            switch bytes[position] {
            case UInt8(ascii: "{"): return parseObject()
            case UInt8(ascii: "["): return parseArray()
            case UInt8(ascii: "\""): return parseString().map(Value.string)
            default: return parseLiteral()
            }
        }

        private mutating func parseObject() -> Value? {
            position += 1
            depth += 1
            defer { depth -= 1 }
            var members: [(String, Value)] = []
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
                position += 1
                return .object(members)
            }
            while true {
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: "\""), let key = parseString() else { return nil }
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { return nil }
                position += 1
                guard let value = parseValue() else { return nil }
                members.append((key, value))
                skipWhitespace()
                guard position < bytes.count else { return nil }
                if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
                if bytes[position] == UInt8(ascii: "}") { position += 1; return .object(members) }
                return nil
            }
        }

        private mutating func parseArray() -> Value? {
            position += 1
            depth += 1
            defer { depth -= 1 }
            var items: [Value] = []
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
                position += 1
                return .array(items)
            }
            while true {
                guard let item = parseValue() else { return nil }
                items.append(item)
                skipWhitespace()
                guard position < bytes.count else { return nil }
                if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
                if bytes[position] == UInt8(ascii: "]") { position += 1; return .array(items) }
                return nil
            }
        }

        private mutating func parseString() -> String? {
            position += 1
            var scalars = String.UnicodeScalarView()
            var raw: [UInt8] = []
            func flush() {
                scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars)
                raw.removeAll()
            }
            while position < bytes.count {
                let byte = bytes[position]
                position += 1
                switch byte {
                case UInt8(ascii: "\""):
                    flush()
                    return String(scalars)
                case UInt8(ascii: "\\"):
                    flush()
                    guard position < bytes.count else { return nil }
                    let escape = bytes[position]
                    position += 1
                    switch escape {
                    case UInt8(ascii: "\""): scalars.append("\"")
                    case UInt8(ascii: "\\"): scalars.append("\\")
                    case UInt8(ascii: "/"): scalars.append("/")
                    case UInt8(ascii: "b"): scalars.append("\u{8}")
                    case UInt8(ascii: "f"): scalars.append("\u{C}")
                    case UInt8(ascii: "n"): scalars.append("\n")
                    case UInt8(ascii: "r"): scalars.append("\r")
                    case UInt8(ascii: "t"): scalars.append("\t")
                    case UInt8(ascii: "u"):
                        guard var unit = hex4() else { return nil }
                        if (0xD800..<0xDC00).contains(unit), position + 1 < bytes.count,
                           bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") {
                            position += 2
                            guard let low = hex4(), (0xDC00..<0xE000).contains(low) else { return nil }
                            unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                        }
                        guard let scalar = Unicode.Scalar(unit) else { return nil }
                        scalars.append(scalar)
                    default: return nil
                    }
                default:
                    raw.append(byte)
                }
            }
            return nil
        }

        private mutating func hex4() -> UInt32? {
            guard position + 4 <= bytes.count, let value = UInt32(String(decoding: bytes[position..<position + 4], as: UTF8.self), radix: 16)
            else { return nil }
            position += 4
            return value
        }

        private mutating func parseLiteral() -> Value? {
            let start = position
            while position < bytes.count, !",]} \t\r\n".utf8.contains(bytes[position]) { position += 1 }
            let text = String(decoding: bytes[start..<position], as: UTF8.self)
            let isNumber = !text.isEmpty && text.allSatisfy { "0123456789+-.eE".contains($0) }
            return ["true", "false", "null"].contains(text) || isNumber ? .literal(text) : nil
        }

        private mutating func skipWhitespace() {
            while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
        }
    }
}

extension HistoryEvent {
    /// The event's canonical JSON: every field but the hashes, keys sorted, absent values as `null`. The
    /// hash chain covers exactly this text; PostgreSQL's `history_canonical` writes the same.
    public var canonicalJSON: String { canonicalJSON(withHashes: false) }

    /// The canonical JSON with `hash` and `previousHash` among its members, in key order: removing those two
    /// gives back exactly what was hashed (the history's NDJSON export).
    public var canonicalJSONWithHashes: String { canonicalJSON(withHashes: true) }

    private func canonicalJSON(withHashes: Bool) -> String {
        let record = record
        func text(_ value: String?) -> String { value.map(CanonicalJSON.quoted) ?? "null" }
        var json = "{\"action\":" + text(record.action?.rawValue)
        json += ",\"actor\":{\"keyId\":" + text(record.actor.keyID?.uuidString.lowercased())
            + ",\"name\":" + text(record.actor.name) + ",\"role\":" + text(record.actor.role?.rawValue) + "}"
        json += ",\"app\":" + text(record.bundleID)
        json += ",\"at\":" + text(canonicalAt)
        json += ",\"chain\":" + text(chain)
        json += ",\"chainSeq\":\(chainSequence)"
        json += ",\"changes\":" + (CanonicalJSON.canonical(changesJSON) ?? "null")
        json += ",\"fromState\":" + text(record.fromState?.rawValue)
        if withHashes { json += ",\"hash\":" + text(hash) }
        json += ",\"kind\":" + text(record.kind.rawValue)
        if withHashes { json += ",\"previousHash\":" + text(previousHash) }
        json += ",\"productId\":" + text(record.productID)
        json += ",\"productVersion\":" + (record.productVersion.map(String.init) ?? "null")
        json += ",\"reason\":" + text(record.reason)
        json += ",\"requestId\":" + text(record.requestID)
        json += ",\"sequence\":\(sequence)"
        json += ",\"toState\":" + text(record.toState?.rawValue)
        return json + "}"
    }
}
