import Foundation

extension UUID {
    /// The UUID as the service writes it everywhere: 36 characters, lower case, as `uuidString.lowercased()`.
    ///
    /// Written digit by digit: on Linux `uuidString` formats with `sprintf`, and every answer writes a few ids
    /// (docs/decisions.md, "Ids are written and read by CatalogCore's `UUIDText`").
    public var lowercaseText: String {
        withUnsafeBytes(of: uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { text in
                var end = 0
                for (index, byte) in bytes.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        text[end] = UInt8(ascii: "-")
                        end += 1
                    }
                    text[end] = hexadecimalDigit(byte >> 4)
                    text[end + 1] = hexadecimalDigit(byte & 0x0f)
                    end += 2
                }
                return end
            }
        }
    }

    /// The UUID `text` spells in the RFC 4122 form: 36 characters, digits of either case with hyphens after the
    /// 8th, 12th, 16th and 20th; `nil` for any other text. `UUID(uuidString:)` reads this form the same, with
    /// `sscanf`, and also takes some malformed texts (a digit missing, a hyphen out of place) as a wrong id.
    public init?(text: some StringProtocol) {
        var bytes = (UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0),
                     UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0))
        let read = withUnsafeMutableBytes(of: &bytes) { bytes -> Bool in
            var utf8 = text.utf8.makeIterator()
            for index in 0..<16 {
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    guard utf8.next() == UInt8(ascii: "-") else { return false }
                }
                guard let high = utf8.next().flatMap(hexadecimalValue), let low = utf8.next().flatMap(hexadecimalValue)
                else { return false }
                bytes[index] = high << 4 | low
            }
            return utf8.next() == nil
        }
        guard read else { return nil }
        self.init(uuid: bytes)
    }

    /// A new random UUID (version 4) from the system's generator. `UUID()` does the same, but on Linux it opens,
    /// reads and closes /dev/urandom for each one: the request ids of every answer.
    public static func random() -> UUID {
        var generator = SystemRandomNumberGenerator()
        var bytes = (generator.next() as UInt64, generator.next() as UInt64)
        return withUnsafeMutableBytes(of: &bytes) { bytes in
            bytes[6] = bytes[6] & 0x0f | 0x40
            bytes[8] = bytes[8] & 0x3f | 0x80
            return UUID(uuid: bytes.load(as: uuid_t.self))
        }
    }
}
