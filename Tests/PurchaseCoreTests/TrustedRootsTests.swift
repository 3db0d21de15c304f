import AppStoreStandIn
import Crypto
import Foundation
import PurchaseCore
import SwiftASN1
import Testing
import X509

/// The shipped root and the loading of configured ones.
@Suite("Trusted roots")
struct TrustedRootsTests {
    /// What Apple publishes for Apple Root CA - G3 (https://www.apple.com/certificateauthority/).
    static let appleG3Fingerprint =
        "63:34:3A:BF:B8:9A:6A:03:EB:B5:7E:9B:3F:5F:A7:BE:7C:4F:5C:75:6F:30:17:B3:A8:C4:88:C3:65:3E:91:79"

    static func der(_ certificate: Certificate) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return serializer.serializedBytes
    }

    static func fingerprint(_ bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).map { String(format: "%02X", $0) }.joined(separator: ":")
    }

    @Test("the default root is Apple Root CA - G3, with Apple's published fingerprint")
    func appleRootCAG3() throws {
        let roots = TrustedRoots.appleRootCAG3
        #expect(roots.certificates.count == 1)
        let root = try #require(roots.certificates.first)
        #expect(Self.fingerprint(try Self.der(root)) == Self.appleG3Fingerprint)
        #expect(root.subject.description.contains("Apple Root CA - G3"))
    }

    @Test("the embedded root is the repository's AppleRootCA-G3.cer, byte for byte")
    func embeddedIsTheFile() throws {
        let file = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/PurchaseCore/SignedData/AppleRootCA-G3.cer")
        let bytes = [UInt8](try Data(contentsOf: file))
        #expect(Self.fingerprint(bytes) == Self.appleG3Fingerprint)
        #expect(try Self.der(try #require(TrustedRoots.appleRootCAG3.certificates.first)) == bytes)
        #expect(try TrustedRoots(pemOrDER: [bytes]).identity == TrustedRoots.appleRootCAG3.identity)
    }

    @Test("roots load from PEM (one or several certificates per file) and DER, and their order names the set")
    func loading() throws {
        let a = SignedDataFixtures.chain.root, b = SignedDataFixtures.otherChain.root
        let pemA = Array(try a.serializeAsPEM().pemString.utf8)
        let pemBoth = Array((try a.serializeAsPEM().pemString + "\n" + b.serializeAsPEM().pemString + "\n").utf8)
        #expect(try TrustedRoots(pemOrDER: [pemA]).certificates == [a])
        #expect(try TrustedRoots(pemOrDER: [pemBoth]).certificates == [a, b])
        #expect(try TrustedRoots(pemOrDER: [pemA, try Self.der(b)]).certificates == [a, b])
        #expect(try TrustedRoots([a]).identity == TrustedRoots(pemOrDER: [try Self.der(a)]).identity)
        #expect(try TrustedRoots([a]).identity != TrustedRoots([b]).identity)
    }

    @Test("files that hold no certificate are refused, naming the file")
    func refused() {
        #expect(throws: TrustedRootsError.empty) { try TrustedRoots([]) }
        #expect(throws: TrustedRootsError.empty) { try TrustedRoots(pemOrDER: []) }
        #expect(throws: TrustedRootsError.notACertificate(index: 1)) {
            try TrustedRoots(pemOrDER: [Array(try SignedDataFixtures.chain.root.serializeAsPEM().pemString.utf8), [1, 2, 3]])
        }
        #expect(throws: TrustedRootsError.notACertificate(index: 0)) {
            try TrustedRoots(pemOrDER: [Array("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n".utf8)])
        }
        #expect(TrustedRootsError.notACertificate(index: 1).description == "root certificate file 2 is not a PEM or DER certificate")
    }
}
