/// A `GET` or `HEAD` request head in the plainest form HTTP/1.1 allows, recognized from its bytes: the request
/// line `GET /target HTTP/1.1`, then header lines `name: value`, then a blank line; no body.
///
/// What it accepts is a strict subset of what NIO's HTTP/1 decoder (llhttp) accepts, and it reads it the same
/// way; anything else is not recognized and is left to that decoder: a target with bytes beyond letters,
/// digits and `-._~/?=` (percent-encoding included), another version, obsolete line folding, bytes outside
/// visible ASCII, a bare CR or LF, and any header that frames a body or changes the protocol
/// (`Content-Length`, `Transfer-Encoding`, `Upgrade`, `Expect`, a `Connection` other than `close` or
/// `keep-alive`).
struct PlainRequestHead {
    /// Longest head recognized (NIO's decoder allows more, and reads what is longer).
    static let maximumLength = 8_192

    var isHead: Bool
    /// The request target as sent (origin form).
    var target: String
    /// The `If-None-Match` values, joined with ", " when the header came more than once.
    var ifNoneMatch: String?
    /// Whether the client asked to close the connection after the answer.
    var close = false

    /// Recognizes `head`, a request head up to and including its blank line's CRLF.
    init?(_ head: UnsafeRawBufferPointer) {
        var reader = Reader(bytes: head)
        if reader.skip("GET ") {
            isHead = false
        } else if reader.skip("HEAD ") {
            isHead = true
        } else {
            return nil
        }
        let targetStart = reader.index
        while let byte = reader.peek(), Self.isTargetByte(byte) { reader.index += 1 }
        guard reader.index > targetStart, head[targetStart] == UInt8(ascii: "/") else { return nil }
        target = String(decoding: UnsafeRawBufferPointer(rebasing: head[targetStart..<reader.index]), as: UTF8.self)
        guard reader.skip(" HTTP/1.1\r\n") else { return nil }
        while !reader.skip("\r\n") {
            let nameStart = reader.index
            while let byte = reader.peek(), Self.isTokenByte(byte) { reader.index += 1 }
            let name = UnsafeRawBufferPointer(rebasing: head[nameStart..<reader.index])
            guard !name.isEmpty, reader.skip(":") else { return nil }
            while let byte = reader.peek(), byte == 0x20 || byte == 0x09 { reader.index += 1 }
            let valueStart = reader.index
            while let byte = reader.peek(), (0x21...0x7E).contains(byte) || byte == 0x20 || byte == 0x09 {
                reader.index += 1
            }
            var valueEnd = reader.index
            while valueEnd > valueStart, head[valueEnd - 1] == 0x20 || head[valueEnd - 1] == 0x09 { valueEnd -= 1 }
            guard reader.skip("\r\n") else { return nil }
            let value = UnsafeRawBufferPointer(rebasing: head[valueStart..<valueEnd])
            if Self.equalsLowercased(name, "content-length") || Self.equalsLowercased(name, "transfer-encoding")
                || Self.equalsLowercased(name, "upgrade") || Self.equalsLowercased(name, "expect")
            {
                return nil
            } else if Self.equalsLowercased(name, "connection") {
                if Self.equalsLowercased(value, "close") {
                    close = true
                } else if !Self.equalsLowercased(value, "keep-alive") {
                    return nil
                }
            } else if Self.equalsLowercased(name, "if-none-match") {
                let text = String(decoding: value, as: UTF8.self)
                ifNoneMatch = ifNoneMatch.map { $0 + ", " + text } ?? text
            }
        }
        guard reader.index == head.count else { return nil }
    }

    /// The length of the first request head in `bytes` (through its blank line), or `nil` when none ends within
    /// ``maximumLength`` bytes.
    static func length(in bytes: UnsafeRawBufferPointer) -> Int? {
        let end = min(bytes.count, maximumLength)
        var index = 3
        while index < end {
            if bytes[index] == 0x0A, bytes[index - 1] == 0x0D, bytes[index - 2] == 0x0A, bytes[index - 3] == 0x0D {
                return index + 1
            }
            index += 1
        }
        return nil
    }

    /// Letters, digits and `-._~/?=`: the bytes of a plain identifier request's target.
    private static func isTargetByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
             UInt8(ascii: "~"), UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "="):
            true
        default: false
        }
    }

    /// RFC 9110's `tchar`: the bytes of a header name.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    /// Whether `bytes` spell `lowercase` in any case.
    private static func equalsLowercased(_ bytes: UnsafeRawBufferPointer, _ lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        let expected = UnsafeBufferPointer(start: lowercase.utf8Start, count: lowercase.utf8CodeUnitCount)
        for (byte, wanted) in zip(bytes, expected) {
            let lowered = (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
            if lowered != wanted { return false }
        }
        return true
    }

    /// A cursor over the head's bytes.
    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var index = 0

        func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

        /// Steps over `literal` if the bytes at the cursor are exactly it.
        mutating func skip(_ literal: StaticString) -> Bool {
            let count = literal.utf8CodeUnitCount
            guard bytes.count - index >= count else { return false }
            let expected = UnsafeBufferPointer(start: literal.utf8Start, count: count)
            for offset in 0..<count where bytes[index + offset] != expected[offset] { return false }
            index += count
            return true
        }
    }
}
