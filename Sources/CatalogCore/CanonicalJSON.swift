import Foundation

/// The canonical text of a JSON value, as the history's hashes cover it: no insignificant whitespace, object
/// keys sorted by their UTF-8 bytes (code point order), strings escaped only where JSON requires (`"`, `\`,
/// and control characters: `\b \f \n \r \t`, others as `\u00xx` in lowercase), everything else as raw UTF-8,
/// numbers exactly as written. This is PostgreSQL's `iap_canonical_json`, so either side can recompute the
/// chain; docs/history.md describes it for auditors who recompute it with tools of their own.
///
/// It works on UTF-8 bytes throughout: a chain's verification and the history's exports make this text for
/// every event, and a purchase's event has a dozen changes.
public enum CanonicalJSON {
    /// The canonical text of the JSON `text`, or `nil` when it is not JSON.
    public static func canonical(_ text: String) -> String? {
        var output: [UInt8] = []
        guard append(canonicalOf: text, to: &output) else { return nil }
        return String(decoding: output, as: UTF8.self)
    }

    /// Appends the canonical text of the JSON `text` to `output`; `false`, and nothing appended, when it is not JSON.
    static func append(canonicalOf text: String, to output: inout [UInt8]) -> Bool {
        guard let value = parse(text) else { return false }
        write(value, to: &output)
        return true
    }

    /// A JSON string literal for `value`.
    public static func quoted(_ value: String) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(value.utf8.count + 2)
        appendQuoted(value.utf8, to: &output)
        return String(decoding: output, as: UTF8.self)
    }

    /// Appends the JSON string literal of the UTF-8 `bytes` to `output`. Every byte of a multi-byte character is
    /// 0x80 or more, so escaping byte by byte escapes exactly the characters below U+0020, `"` and `\`.
    static func appendQuoted(_ bytes: some Collection<UInt8>, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        // A string's bytes are contiguous: the runs between the bytes to escape (a receipt has none) are copied
        // whole rather than a byte at a time.
        let copied: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            var run = buffer.startIndex
            for index in buffer.indices where needsEscape(buffer[index]) {
                output.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[run..<index]))
                appendEscape(of: buffer[index], to: &output)
                run = index + 1
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[run...]))
        }
        if copied == nil {
            for byte in bytes {
                if needsEscape(byte) { appendEscape(of: byte, to: &output) } else { output.append(byte) }
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    private static func appendEscape(of byte: UInt8, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\\"))
        switch byte {
        case 0x08: output.append(UInt8(ascii: "b"))
        case 0x0C: output.append(UInt8(ascii: "f"))
        case 0x0A: output.append(UInt8(ascii: "n"))
        case 0x0D: output.append(UInt8(ascii: "r"))
        case 0x09: output.append(UInt8(ascii: "t"))
        case ..<0x20:
            output.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                       hexadecimalDigit(byte >> 4), hexadecimalDigit(byte & 0x0f)])
        default: output.append(byte)  // `"` and `\`
        }
    }

    /// The JSON `text` as a value, or `nil` when it is not JSON.
    static func parse(_ text: String) -> Value? {
        var parser = Parser(bytes: Array(text.utf8))
        guard let value = parser.parseValue(), parser.isAtEnd else { return nil }
        return value
    }

    /// A JSON value as read: strings as their UTF-8 bytes (escapes resolved), numbers and the other literals
    /// exactly as written.
    enum Value {
        case literal(ArraySlice<UInt8>)
        case string(ArraySlice<UInt8>)
        case array([Value])
        case object([(key: ArraySlice<UInt8>, value: Value)])
    }

    static func write(_ value: Value, to output: inout [UInt8]) {
        switch value {
        case .literal(let text): output.append(contentsOf: text)
        case .string(let text): appendQuoted(text, to: &output)
        case .array(let items):
            output.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                write(item, to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for (index, member) in members.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }).enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                appendQuoted(member.key, to: &output)
                output.append(UInt8(ascii: ":"))
                write(member.value, to: &output)
            }
            output.append(UInt8(ascii: "}"))
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
            var members: [(key: ArraySlice<UInt8>, value: Value)] = []
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

        /// The string's UTF-8 bytes: a slice of the text itself when it has no escapes, as most have.
        private mutating func parseString() -> ArraySlice<UInt8>? {
            position += 1
            let start = position
            while position < bytes.count, bytes[position] != UInt8(ascii: "\""), bytes[position] != UInt8(ascii: "\\") {
                position += 1
            }
            guard position < bytes.count else { return nil }
            if bytes[position] == UInt8(ascii: "\"") {
                position += 1
                return bytes[start..<position - 1]
            }
            var decoded = Array(bytes[start..<position])
            while position < bytes.count {
                let byte = bytes[position]
                position += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return decoded[...]
                case UInt8(ascii: "\\"):
                    guard position < bytes.count else { return nil }
                    let escape = bytes[position]
                    position += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(escape)
                    case UInt8(ascii: "b"): decoded.append(0x08)
                    case UInt8(ascii: "f"): decoded.append(0x0C)
                    case UInt8(ascii: "n"): decoded.append(0x0A)
                    case UInt8(ascii: "r"): decoded.append(0x0D)
                    case UInt8(ascii: "t"): decoded.append(0x09)
                    case UInt8(ascii: "u"):
                        guard var unit = hex4() else { return nil }
                        if (0xD800..<0xDC00).contains(unit), position + 1 < bytes.count,
                           bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") {
                            position += 2
                            guard let low = hex4(), (0xDC00..<0xE000).contains(low) else { return nil }
                            unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                        }
                        guard let scalar = Unicode.Scalar(unit) else { return nil }
                        UTF8.encode(scalar) { decoded.append($0) }
                    default: return nil
                    }
                default:
                    decoded.append(byte)
                }
            }
            return nil
        }

        /// The four hex digits of a `\u` escape; `nil` unless all four are digits.
        private mutating func hex4() -> UInt32? {
            guard position + 4 <= bytes.count else { return nil }
            var value: UInt32 = 0
            for digit in bytes[position..<position + 4] {
                guard let digitValue = hexadecimalValue(digit) else { return nil }
                value = value << 4 | UInt32(digitValue)
            }
            position += 4
            return value
        }

        /// `true`, `false`, `null` or a number, as written.
        private mutating func parseLiteral() -> Value? {
            let start = position
            while position < bytes.count, !",]} \t\r\n".utf8.contains(bytes[position]) { position += 1 }
            let text = bytes[start..<position]
            return Self.isNumber(text) || ["true", "false", "null"].contains(where: { $0.utf8.elementsEqual(text) })
                ? .literal(text) : nil
        }

        /// RFC 8259's number: `-`? (`0` | a digit 1–9 and digits) (`.` digits)? (`e` or `E`, `+` or `-`?, digits)?
        static func isNumber(_ text: ArraySlice<UInt8>) -> Bool {
            var index = text.startIndex
            func digits() -> Int {
                let start = index
                while index < text.endIndex, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(text[index]) { index += 1 }
                return index - start
            }
            func skip(_ characters: String) -> Bool {
                guard index < text.endIndex, characters.utf8.contains(text[index]) else { return false }
                index += 1
                return true
            }
            _ = skip("-")
            if index < text.endIndex, text[index] == UInt8(ascii: "0") {
                index += 1
            } else if digits() == 0 {
                return false
            }
            if skip("."), digits() == 0 { return false }
            if skip("eE") {
                _ = skip("+-")
                if digits() == 0 { return false }
            }
            return index == text.endIndex
        }

        private mutating func skipWhitespace() {
            while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
        }
    }
}

extension HistoryEvent {
    /// The event's canonical JSON: every field but the hashes, keys sorted, absent values as `null`. The
    /// hash chain covers exactly this text; PostgreSQL's `history_canonical` writes the same.
    public var canonicalJSON: String { String(decoding: canonicalJSONUTF8(), as: UTF8.self) }

    /// The canonical JSON with `hash` and `previousHash` among its members, in key order: removing those two
    /// gives back exactly what was hashed (the history's NDJSON export).
    public var canonicalJSONWithHashes: String { String(decoding: canonicalJSONUTF8(withHashes: true), as: UTF8.self) }

    /// ``canonicalJSON`` (or ``canonicalJSONWithHashes``) as UTF-8 bytes, what the hash is made of.
    public func canonicalJSONUTF8(withHashes: Bool = false) -> [UInt8] {
        let record = record
        var json: [UInt8] = []
        json.reserveCapacity(512 + changesJSON.utf8.count)
        json.append(UInt8(ascii: "{"))
        func member(_ name: StaticString, first: Bool = false) {
            if !first { json.append(UInt8(ascii: ",")) }
            json.append(UInt8(ascii: "\""))
            name.withUTF8Buffer { json.append(contentsOf: $0) }
            json.append(contentsOf: "\":".utf8)
        }
        func text(_ value: String?) {
            if let value { CanonicalJSON.appendQuoted(value.utf8, to: &json) } else { json.append(contentsOf: "null".utf8) }
        }
        member("action", first: true); text(record.action?.rawValue)
        member("actor"); json.append(UInt8(ascii: "{"))
        member("keyId", first: true); text(record.actor.keyID?.lowercaseText)
        member("name"); text(record.actor.name)
        member("role"); text(record.actor.role?.rawValue)
        json.append(UInt8(ascii: "}"))
        member("app"); text(record.bundleID)
        member("at"); text(canonicalAt)
        member("chain"); text(chain)
        member("chainSeq"); json.append(contentsOf: String(chainSequence).utf8)
        member("changes")
        if !CanonicalJSON.append(canonicalOf: changesJSON, to: &json) { json.append(contentsOf: "null".utf8) }
        member("fromState"); text(record.fromState?.rawValue)
        if withHashes { member("hash"); text(hash) }
        member("kind"); text(record.kind.rawValue)
        if withHashes { member("previousHash"); text(previousHash) }
        member("productId"); text(record.productID)
        member("productVersion"); json.append(contentsOf: (record.productVersion.map(String.init) ?? "null").utf8)
        member("reason"); text(record.reason)
        member("requestId"); text(record.requestID)
        member("sequence"); json.append(contentsOf: String(sequence).utf8)
        member("toState"); text(record.toState?.rawValue)
        json.append(UInt8(ascii: "}"))
        return json
    }
}
