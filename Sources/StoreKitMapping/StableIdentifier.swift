/// Eight uppercase hex digits derived from a text, for the ids a file needs and the catalog does not hold
/// (internal ids of products the catalog made, group ids, the file identifier): the same catalog exports the
/// same file every time, so that exports can be compared and kept under version control.
enum StableIdentifier {
    /// FNV-1a (32 bits) of the text's UTF-8, as eight uppercase hex digits.
    static func of(_ text: String) -> String {
        var hash: UInt32 = 0x811C_9DC5
        for byte in text.utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 0x0100_0193
        }
        let digits = String(hash, radix: 16, uppercase: true)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}
