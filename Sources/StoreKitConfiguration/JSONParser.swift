/// A small recursive-descent JSON parser.
///
/// Written by hand because `JSONSerialization` forgets key order and does
/// not reliably tell `1` from `1.0` (which Xcode's output depends on), and
/// neither it nor `JSONDecoder` reports a line and column.
struct JSONParser {
    /// Bounds recursion so that a hostile upload cannot exhaust the stack; real files nest about 8 deep.
    static let maximumDepth = 512

    private let bytes: [UInt8]
    private var offset = 0
    private var depth = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func parseDocument() throws(StoreKitJSONSyntaxError) -> StoreKitJSON {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            offset = 3
        }
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        guard offset == bytes.count else {
            throw error("unexpected \(describeCurrent()) after the end of the JSON value")
        }
        return value
    }

    // MARK: Values

    private mutating func parseValue() throws(StoreKitJSONSyntaxError) -> StoreKitJSON {
        guard let byte = current else { throw error("unexpected end of input; expected a value") }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        case UInt8(ascii: "t"): try parseLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try parseLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try parseLiteral("null"); return .null
        default: throw error("unexpected \(describeCurrent()); expected a value")
        }
    }

    private mutating func parseObject() throws(StoreKitJSONSyntaxError) -> StoreKitJSON {
        try enterContainer()
        offset += 1
        var object = StoreKitJSONObject()
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            offset += 1
            depth -= 1
            return .object(object)
        }
        while true {
            guard current == UInt8(ascii: "\"") else {
                throw error("unexpected \(describeCurrent()); expected a key in double quotes")
            }
            let keyOffset = offset
            let key = try parseString()
            if object[key] != nil {
                throw error("duplicate key \(quoted(key)) in one object", at: keyOffset)
            }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else {
                throw error("unexpected \(describeCurrent()); expected ':' after the key")
            }
            offset += 1
            skipWhitespace()
            object[key] = try parseValue()
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","):
                offset += 1
                skipWhitespace()
            case UInt8(ascii: "}"):
                offset += 1
                depth -= 1
                return .object(object)
            default:
                throw error("unexpected \(describeCurrent()); expected ',' or '}' in an object")
            }
        }
    }

    private mutating func parseArray() throws(StoreKitJSONSyntaxError) -> StoreKitJSON {
        try enterContainer()
        offset += 1
        var elements: [StoreKitJSON] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            offset += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            elements.append(try parseValue())
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","):
                offset += 1
                skipWhitespace()
            case UInt8(ascii: "]"):
                offset += 1
                depth -= 1
                return .array(elements)
            default:
                throw error("unexpected \(describeCurrent()); expected ',' or ']' in an array")
            }
        }
    }

    private mutating func enterContainer() throws(StoreKitJSONSyntaxError) {
        depth += 1
        if depth > Self.maximumDepth {
            throw error("nesting deeper than \(Self.maximumDepth) levels")
        }
    }

    private mutating func parseLiteral(_ literal: String) throws(StoreKitJSONSyntaxError) {
        let start = offset
        for expected in literal.utf8 {
            guard current == expected else {
                throw error("invalid literal; expected \(literal)", at: start)
            }
            offset += 1
        }
    }

    // MARK: Strings

    private mutating func parseString() throws(StoreKitJSONSyntaxError) -> String {
        let start = offset
        offset += 1
        var utf8: [UInt8] = []
        while true {
            guard let byte = current else { throw error("unterminated string", at: start) }
            switch byte {
            case UInt8(ascii: "\""):
                offset += 1
                guard let string = String(validating: utf8, as: UTF8.self) else {
                    throw error("string is not valid UTF-8", at: start)
                }
                return string
            case UInt8(ascii: "\\"):
                try parseEscape(into: &utf8)
            case 0..<0x20:
                throw error("control character U+\(hex(byte, width: 4)) must be escaped in a string")
            default:
                utf8.append(byte)
                offset += 1
            }
        }
    }

    private mutating func parseEscape(into utf8: inout [UInt8]) throws(StoreKitJSONSyntaxError) {
        let start = offset
        offset += 1
        guard let byte = current else { throw error("unterminated string") }
        offset += 1
        switch byte {
        case UInt8(ascii: "\""): utf8.append(byte)
        case UInt8(ascii: "\\"): utf8.append(byte)
        case UInt8(ascii: "/"): utf8.append(byte)
        case UInt8(ascii: "b"): utf8.append(0x08)
        case UInt8(ascii: "f"): utf8.append(0x0C)
        case UInt8(ascii: "n"): utf8.append(0x0A)
        case UInt8(ascii: "r"): utf8.append(0x0D)
        case UInt8(ascii: "t"): utf8.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try parseHexQuad()
            if (0xD800..<0xDC00).contains(scalar) {
                // A high surrogate must be followed by an escaped low surrogate to make one scalar.
                guard current == UInt8(ascii: "\\"), peek(1) == UInt8(ascii: "u") else {
                    throw error("unpaired surrogate in \\u escape", at: start)
                }
                offset += 2
                let low = try parseHexQuad()
                guard (0xDC00..<0xE000).contains(low) else {
                    throw error("unpaired surrogate in \\u escape", at: start)
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(scalar) {
                throw error("unpaired surrogate in \\u escape", at: start)
            }
            utf8.append(contentsOf: String(Character(Unicode.Scalar(scalar)!)).utf8)
        default:
            throw error("invalid escape sequence in a string", at: start)
        }
    }

    private mutating func parseHexQuad() throws(StoreKitJSONSyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = current, let digit = hexDigitValue(byte) else {
                throw error("expected four hexadecimal digits after \\u")
            }
            value = value << 4 | digit
            offset += 1
        }
        return value
    }

    private func hexDigitValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    // MARK: Numbers

    private mutating func parseNumber() throws(StoreKitJSONSyntaxError) -> StoreKitJSON {
        let start = offset
        var isInteger = true
        if current == UInt8(ascii: "-") { offset += 1 }
        if current == UInt8(ascii: "0") {
            offset += 1
            if let byte = current, isDigit(byte) {
                throw error("leading zeros are not allowed in a number", at: start)
            }
        } else {
            try skipDigits(start: start)
        }
        if current == UInt8(ascii: ".") {
            isInteger = false
            offset += 1
            try skipDigits(start: start)
        }
        if let byte = current, byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
            isInteger = false
            offset += 1
            if let sign = current, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { offset += 1 }
            try skipDigits(start: start)
        }
        let text = String(decoding: bytes[start..<offset], as: UTF8.self)
        // Integers too large for Int fall back to Double, as JSONSerialization does.
        if isInteger, let integer = Int(text) {
            return .integer(integer)
        }
        guard let double = Double(text), double.isFinite else {
            throw error("number is out of range", at: start)
        }
        return .double(double)
    }

    private mutating func skipDigits(start: Int) throws(StoreKitJSONSyntaxError) {
        guard let byte = current, isDigit(byte) else {
            throw error("malformed number; expected a digit", at: offset)
        }
        while let byte = current, isDigit(byte) { offset += 1 }
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    // MARK: Position and errors

    private static let whitespace: Set<UInt8> = [0x20, 0x0A, 0x0D, 0x09]

    private var current: UInt8? { offset < bytes.count ? bytes[offset] : nil }

    private func peek(_ distance: Int) -> UInt8? {
        offset + distance < bytes.count ? bytes[offset + distance] : nil
    }

    private mutating func skipWhitespace() {
        while let byte = current, Self.whitespace.contains(byte) {
            offset += 1
        }
    }

    private func describeCurrent() -> String {
        guard let byte = current else { return "end of input" }
        if (0x21..<0x7F).contains(byte) {
            return "character '\(Character(Unicode.Scalar(byte)))'"
        }
        return "byte 0x\(hex(byte, width: 2))"
    }

    private func quoted(_ key: String) -> String {
        XcodeJSONWriter.quoted(key)
    }

    private func hex(_ byte: UInt8, width: Int) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    private func error(_ message: String, at errorOffset: Int? = nil) -> StoreKitJSONSyntaxError {
        let position = min(errorOffset ?? offset, bytes.count)
        var line = 1
        var column = 1
        let hasByteOrderMark = bytes.starts(with: [0xEF, 0xBB, 0xBF])
        for byte in bytes[(hasByteOrderMark ? min(3, position) : 0)..<position] {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                // Continuation bytes belong to the scalar already counted.
                column += 1
            }
        }
        return StoreKitJSONSyntaxError(line: line, column: column, byteOffset: position, message: message)
    }
}
