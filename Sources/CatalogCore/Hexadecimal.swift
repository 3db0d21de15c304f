extension Sequence<UInt8> {
    /// The bytes in lowercase hexadecimal, two digits each: how the history's hashes, the catalog files'
    /// fingerprints and the identifier lists' ETags are written.
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

/// The ASCII digit of a value below 16.
private func hexadecimalDigit(_ value: UInt8) -> UInt8 {
    value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
}
