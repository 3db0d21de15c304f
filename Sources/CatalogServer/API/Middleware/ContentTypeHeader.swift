/// What a request's `Content-Type` says, read from its bytes: every request passes three middlewares that ask,
/// and lowercased copies and Foundation's case-insensitive comparison were a measurable part of a signed
/// transaction's time. (Hummingbird's `MediaType` parses the header into lowercased copies too.)
enum ContentTypeHeader {
    /// Whether `contentType` names JSON (`application/json`, `application/problem+json`, …), in any case.
    static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let json = Array("json".utf8)
        var matched = 0
        for byte in contentType.utf8 {
            // "json" repeats none of its letters, so a mismatch can only restart the match at this byte.
            let lower = lowercased(byte)
            if lower == json[matched] {
                matched += 1
                if matched == json.count { return true }
            } else {
                matched = lower == json[0] ? 1 : 0
            }
        }
        return false
    }

    /// Whether the media type of `contentType`, parameters and surrounding blanks aside, is one of `types`
    /// (written in lower case), in any case.
    static func isOne(of types: [String], _ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let type = contentType.utf8.prefix { $0 != UInt8(ascii: ";") }
        let isBlank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = type.firstIndex(where: { !isBlank($0) }), let last = type.lastIndex(where: { !isBlank($0) })
        else { return false }
        let bare = type[first...last]
        return types.contains { bare.elementsEqual($0.utf8) { lowercased($0) == $1 } }
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
    }
}
