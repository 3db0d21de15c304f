import CatalogCore

/// Percent-encoded text (RFC 3986, section 2.1) read back, byte by byte: the URL checks and the response
/// header fields need it on every request, and Foundation's `removingPercentEncoding` was most of their cost
/// (docs/performance.md, "The receipts' intake: text read as bytes").
enum PercentDecoding {
    /// `text` with each `%XX` replaced by the byte it spells; `nil` when a `%` is not followed by two hex
    /// digits or the bytes are not UTF-8.
    static func decoded(_ text: String) -> String? {
        guard text.utf8.contains(UInt8(ascii: "%")) else { return text }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexadecimalValue), let low = iterator.next().flatMap(hexadecimalValue) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
