import CatalogCore
import Foundation
import Testing

/// The one hex encoder of hashes, fingerprints and ETags.
@Suite("Hexadecimal")
struct HexadecimalTests {
    @Test("every byte as two lowercase digits, as String(format: \"%02x\") writes it")
    func everyByte() {
        let bytes = (0...255).map(UInt8.init)
        #expect(bytes.lowercaseHexadecimal == bytes.map { String(format: "%02x", $0) }.joined())
    }

    @Test("in order, the digits' boundaries and nothing for no bytes", arguments: [
        ([], ""), ([0x00], "00"), ([0x09, 0x0a, 0x0f, 0x10], "090a0f10"), ([0x9f, 0xa0, 0xff], "9fa0ff"),
    ] as [([UInt8], String)])
    func examples(bytes: [UInt8], text: String) {
        #expect(bytes.lowercaseHexadecimal == text)
        #expect(bytes[...].lowercaseHexadecimal == text)
    }

    @Test("hex text back to its bytes, in either case; an odd last digit ignored")
    func decoding() {
        let bytes = (0...255).map(UInt8.init)
        #expect([UInt8](hexadecimal: bytes.lowercaseHexadecimal) == bytes)
        #expect([UInt8](hexadecimal: bytes.lowercaseHexadecimal.uppercased()) == bytes)
        #expect([UInt8](hexadecimal: "") == [])
        #expect([UInt8](hexadecimal: "0aF") == [0x0a])
    }

    @Test("a digit's value in either case; every other byte is not a digit")
    func digitValues() {
        for byte in (0...255).map(UInt8.init) {
            let reference = UInt8(String(UnicodeScalar(byte)), radix: 16)
            #expect(hexadecimalValue(byte) == reference, "byte \(byte)")
        }
    }
}
