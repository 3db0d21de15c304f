import Foundation

/// Base64url without padding (RFC 4648 §5), the encoding of a JWS's three parts (RFC 7515 §2).
///
/// The decoder is strict: padding, characters outside the alphabet, a length no encoding has, and unused low
/// bits that are not zero are all refused, so one text has one meaning. It works on UTF-8 bytes without
/// copying the text, because it runs on every request.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// 0...63 for the alphabet's characters, 0xFF for every other byte.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, character) in alphabet.enumerated() { table[Int(character)] = UInt8(index) }
        return table
    }()

    /// `bytes` encoded, without padding.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        let input = Array(bytes)
        var output = [UInt8]()
        output.reserveCapacity((input.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= input.count {
            let group = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
            output.append(alphabet[Int(group >> 18 & 63)])
            output.append(alphabet[Int(group >> 12 & 63)])
            output.append(alphabet[Int(group >> 6 & 63)])
            output.append(alphabet[Int(group & 63)])
            index += 3
        }
        switch input.count - index {
        case 1:
            let group = UInt32(input[index]) << 16
            output.append(alphabet[Int(group >> 18 & 63)])
            output.append(alphabet[Int(group >> 12 & 63)])
        case 2:
            let group = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8
            output.append(alphabet[Int(group >> 18 & 63)])
            output.append(alphabet[Int(group >> 12 & 63)])
            output.append(alphabet[Int(group >> 6 & 63)])
        default:
            break
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes `text` encodes, or nil when it is not strict unpadded base64url.
    public static func decode(_ text: some StringProtocol) -> Data? {
        var text = String(text)
        return text.withUTF8 { decode(UnsafeRawBufferPointer($0)) }
    }

    /// The bytes the UTF-8 `encoded` encodes, or nil when it is not strict unpadded base64url.
    static func decode(_ encoded: UnsafeRawBufferPointer) -> Data? {
        let count = encoded.count
        if count % 4 == 1 { return nil }
        let outputCount = count / 4 * 3 + max(count % 4 - 1, 0)
        var output = Data(count: outputCount)
        let decoded = output.withUnsafeMutableBytes { (out: UnsafeMutableRawBufferPointer) -> Bool in
            values.withUnsafeBufferPointer { table -> Bool in
                var written = 0
                var index = 0
                while index + 4 <= count {
                    let a = table[Int(encoded[index])], b = table[Int(encoded[index + 1])]
                    let c = table[Int(encoded[index + 2])], d = table[Int(encoded[index + 3])]
                    if (a | b | c | d) & 0xC0 != 0 { return false }
                    let group = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                    out[written] = UInt8(truncatingIfNeeded: group >> 16)
                    out[written + 1] = UInt8(truncatingIfNeeded: group >> 8)
                    out[written + 2] = UInt8(truncatingIfNeeded: group)
                    written += 3
                    index += 4
                }
                switch count - index {
                case 2:
                    let a = table[Int(encoded[index])], b = table[Int(encoded[index + 1])]
                    if (a | b) & 0xC0 != 0 || b & 0x0F != 0 { return false }
                    out[written] = a << 2 | b >> 4
                case 3:
                    let a = table[Int(encoded[index])], b = table[Int(encoded[index + 1])]
                    let c = table[Int(encoded[index + 2])]
                    if (a | b | c) & 0xC0 != 0 || c & 0x03 != 0 { return false }
                    out[written] = a << 2 | b >> 4
                    out[written + 1] = (b & 0x0F) << 4 | c >> 2
                default:
                    break
                }
                return true
            }
        }
        return decoded ? output : nil
    }
}
