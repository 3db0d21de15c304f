import Foundation
import PurchaseCore
import Testing

/// JWS's base64url: one text, one meaning.
@Suite("Base64url")
struct Base64URLTests {
    @Test("encodes without padding and decodes back, for every length", arguments: 0..<40)
    func roundTrip(length: Int) {
        let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 97 + 250) }
        let text = Base64URL.encode(bytes)
        #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
        #expect(text == Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: ""))
        #expect(Base64URL.decode(text).map(Array.init) == bytes)
    }

    @Test("refuses padding, other alphabets, impossible lengths and stray low bits", arguments: [
        "AA==", "A+A/", "A", "AAAAA", "AB", "AAB", "A A=", "ä", "*!",
    ])
    func strict(text: String) {
        #expect(Base64URL.decode(text) == nil)
    }
}
