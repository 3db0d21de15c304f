extension Sequence<UInt8> {
    /// The bytes in lowercase hexadecimal, two digits each: how the history's hashes, the migrations' checksums,
    /// the catalog files' fingerprints and the identifier lists' ETags are written.
    ///
    /// Written digit by digit into the string's storage: verifying the history writes one per event, and
    /// `String(format:)` per byte took half of that time.
    public var lowercaseHexadecimal: String {
        let bytes = Array(self)
        return String(unsafeUninitializedCapacity: bytes.count * 2) { text in
            for (index, byte) in bytes.enumerated() {
                text[2 * index] = hexadecimalDigit(byte >> 4)
                text[2 * index + 1] = hexadecimalDigit(byte & 0x0f)
            }
            return bytes.count * 2
        }
    }
}

extension [UInt8] {
    /// The bytes of hexadecimal text, two digits each (either case); a last odd digit is ignored. The text is
    /// the service's own (a hash it stored): a character that is not a digit reads as 0 rather than being refused.
    public init(hexadecimal text: some StringProtocol) {
        self.init()
        reserveCapacity(text.utf8.count / 2)
        var iterator = text.utf8.makeIterator()
        while let high = iterator.next(), let low = iterator.next() {
            append((hexadecimalValue(high) ?? 0) << 4 | (hexadecimalValue(low) ?? 0))
        }
    }
}

/// The value of an ASCII hexadecimal digit, either case; `nil` for any other byte.
public func hexadecimalValue(_ digit: UInt8) -> UInt8? {
    switch digit {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
    default: nil
    }
}

/// The ASCII digit of a value below 16.
func hexadecimalDigit(_ value: UInt8) -> UInt8 {
    value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
}
