/// An IPv4 or IPv6 address, read from every spelling a resolver or a URL parser would accept, so that the
/// address rules (``WebhookAddressPolicy``) judge the address a connection would really reach.
public enum IPAddress: Sendable, Hashable, CustomStringConvertible {
    case v4(UInt32)
    /// The 16 bytes, most significant first.
    case v6([UInt8])

    /// The address `text` spells, as `inet_aton` reads IPv4 (one to four parts, each decimal, octal with a
    /// leading `0`, or hexadecimal with `0x`; the last part fills the remaining bytes: `2130706433`, `0177.1`
    /// and `0x7f.0.0.1` are all 127.0.0.1) and as RFC 4291 writes IPv6 (with `::` and a dotted IPv4 tail; no
    /// zone). `nil` for anything else.
    public init?(_ text: String) {
        if let v4 = Self.parseV4(text) {
            self = .v4(v4)
        } else if let v6 = Self.parseV6(text) {
            self = .v6(v6)
        } else {
            return nil
        }
    }

    /// Whether `host` is meant as an IPv4 address: its last label is a number (digits, or `0x` and hex digits),
    /// as the WHATWG URL standard decides. No domain name ends so, and a resolver reads such a host as an
    /// address whatever its spelling: a host that looks numeric and is not a valid address must be refused.
    public static func looksNumeric(_ host: String) -> Bool {
        var labels = host.split(separator: ".", omittingEmptySubsequences: false)
        if labels.count > 1, labels.last == "" { labels.removeLast() }
        guard let last = labels.last, !last.isEmpty else { return false }
        if last.allSatisfy(\.isASCIIDigit) { return true }
        let lower = last.lowercased()
        return lower.hasPrefix("0x") && lower.dropFirst(2).allSatisfy(\.isHexDigit)
    }

    /// The IPv4 address embedded in an IPv6 one by a transition scheme: IPv4-mapped (`::ffff:a.b.c.d`),
    /// IPv4-compatible (`::a.b.c.d`), NAT64 (`64:ff9b::/96`), 6to4 (`2002:AABB:CCDD::/16`), and Teredo's
    /// server and client (`2001:0::/32`, the client's bits inverted). A connection to such an address may reach
    /// the embedded one.
    public var embeddedV4: [UInt32] {
        guard case .v6(let bytes) = self else { return [] }
        func v4(_ offset: Int, inverted: Bool = false) -> UInt32 {
            let value = bytes[offset..<offset + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            return inverted ? ~value : value
        }
        let firstTen = bytes[0..<10].allSatisfy { $0 == 0 }
        if firstTen, bytes[10] == 0xFF, bytes[11] == 0xFF { return [v4(12)] }
        if firstTen, bytes[10] == 0, bytes[11] == 0, v4(12) > 1 { return [v4(12)] }
        if bytes[0..<12] == [0x00, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0] { return [v4(12)] }
        if bytes[0] == 0x20, bytes[1] == 0x02 { return [v4(2)] }
        if bytes[0..<4] == [0x20, 0x01, 0x00, 0x00] { return [v4(4), v4(12, inverted: true)] }
        return []
    }

    public var description: String {
        switch self {
        case .v4(let value):
            return [24, 16, 8, 0].map { String((value >> UInt32($0)) & 0xFF) }.joined(separator: ".")
        case .v6(let bytes):
            return stride(from: 0, to: 16, by: 2)
                .map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
                .joined(separator: ":")
        }
    }

    private static func parseV4(_ text: String) -> UInt32? {
        var parts = text.split(separator: ".", omittingEmptySubsequences: false)
        // A resolver takes a trailing dot as the root; so does the URL standard.
        if parts.count > 1, parts.last == "" { parts.removeLast() }
        guard (1...4).contains(parts.count) else { return nil }
        var numbers: [UInt64] = []
        for part in parts {
            guard let number = parseV4Part(part) else { return nil }
            numbers.append(number)
        }
        var value: UInt64 = 0
        for (index, number) in numbers.dropLast().enumerated() {
            guard number <= 0xFF else { return nil }
            value |= number << UInt64(8 * (3 - index))
        }
        let lastBits = UInt64(8 * (5 - numbers.count))
        guard let last = numbers.last, last < (1 << lastBits) else { return nil }
        return UInt32(value | last)
    }

    private static func parseV4Part(_ part: Substring) -> UInt64? {
        guard !part.isEmpty, part.count <= 32 else { return nil }
        let lower = part.lowercased()
        if lower.hasPrefix("0x") {
            let digits = lower.dropFirst(2)
            return digits.isEmpty ? 0 : UInt64(digits, radix: 16)
        }
        if lower.count > 1, lower.hasPrefix("0") { return UInt64(lower.dropFirst(), radix: 8) }
        guard lower.allSatisfy(\.isASCIIDigit) else { return nil }
        return UInt64(lower)
    }

    private static func parseV6(_ text: String) -> [UInt8]? {
        guard text.contains(":"), !text.contains("%"), text.utf8.count <= 45 else { return nil }
        let halves = text.split(separator: "::", omittingEmptySubsequences: false).map(String.init)
        guard halves.count <= 2 else { return nil }
        func groups(_ part: String) -> [UInt16]? {
            guard !part.isEmpty else { return [] }
            var result: [UInt16] = []
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            for (index, piece) in pieces.enumerated() {
                if index == pieces.count - 1, piece.contains(".") {
                    guard piece.split(separator: ".", omittingEmptySubsequences: false).count == 4,
                          piece.split(separator: ".").allSatisfy({ $0.allSatisfy(\.isASCIIDigit) && $0.count <= 3 }),
                          let v4 = parseV4(String(piece)) else { return nil }
                    result += [UInt16(v4 >> 16), UInt16(v4 & 0xFFFF)]
                } else {
                    guard (1...4).contains(piece.count), let group = UInt16(piece, radix: 16) else { return nil }
                    result.append(group)
                }
            }
            return result
        }
        guard let head = groups(halves[0]) else { return nil }
        var all: [UInt16]
        if halves.count == 2 {
            guard let tail = groups(halves[1]), head.count + tail.count <= 7 else { return nil }
            all = head + Array(repeating: 0, count: 8 - head.count - tail.count) + tail
        } else {
            guard head.count == 8 else { return nil }
            all = head
        }
        return all.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
