@testable import PurchaseCore
import Testing

/// What makes two proofs the same submission: a receipt's text without whitespace, a signed transaction's as sent.
@Suite("A proof's canonical text")
struct PurchaseProofTests {
    /// The rule as it reads: every Unicode whitespace character removed.
    static func reference(_ text: String) -> String {
        String(text.unicodeScalars.filter { !$0.properties.isWhitespace })
    }

    @Test("a receipt loses every whitespace character, ASCII or not, and nothing else", arguments: [
        "", "MIIT0gYJKoZIhvcNAQcCoIIT", "MIIT\n0gYJ\r\nKoZI\thvcN AQcC", " \u{0B}\u{0C}MIIT ", "MIIT\u{00A0}0gYJ",
        "MIIT\u{2028}0g\u{3000}YJ\u{85}", "MIIT\u{200B}0gYJ", "é MIIT\n", "\n\n\n", "MII\u{1F600} T",
    ])
    func receipt(text: String) {
        let canonical = PurchaseProof.receipt(text).canonicalText
        #expect(canonical == Self.reference(text))
        #expect(!canonical.unicodeScalars.contains { $0.properties.isWhitespace })
    }

    @Test("every ASCII character is kept or removed as the rule says")
    func everyASCIICharacter() {
        for value in UInt8(0)..<0x80 {
            let text = "AB" + String(UnicodeScalar(value)) + "CD"
            #expect(PurchaseProof.receipt(text).canonicalText == Self.reference(text), "byte \(value)")
            // Bytes that are not one buffer are read by the same loop.
            let scanned = PurchaseProof.scan(text.utf8.lazy.map { $0 })
            #expect(scanned == PurchaseProof.scan(Array(text.utf8)), "byte \(value)")
            #expect(scanned.blanks == (Self.reference(text) != text), "byte \(value)")
        }
        #expect(PurchaseProof.scan("é".utf8) == (ascii: false, blanks: false))
    }

    @Test("a signed transaction is its own canonical text, whitespace included")
    func signed() {
        #expect(PurchaseProof.signedTransaction("a.b c.d\n").canonicalText == "a.b c.d\n")
    }
}
