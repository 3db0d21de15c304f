import AppStoreStandIn
import Crypto
import Foundation
import PurchaseCore
import Testing

/// The forged corpus of issue 22 (and of the benchmark's `forged.jsonl`): each case is bad for one reason, is
/// refused with that reason, and nothing of it is returned.
@Suite("Forged signed data")
struct ForgedSignedDataTests {
    typealias F = SignedDataFixtures

    /// One forged input: how to make it for a bundle, and the refusal it must get.
    struct Forgery: Sendable, CustomTestStringConvertible {
        let why: String
        let expected: SignedDataRefusal
        let make: @Sendable (_ bundleId: String) throws -> String
        var testDescription: String { why }
    }

    static let forgeries: [Forgery] = [
        Forgery(why: "signature altered (one bit of r flipped)", expected: .signature) { bundle in
            var parts = F.parts(try F.signer.sign(F.transaction(bundleId: bundle)))
            var signature = Base64URL.decode(parts[2])!
            signature[10] ^= 0x01
            parts[2] = Base64URL.encode(signature)
            return parts.joined(separator: ".")
        },
        Forgery(why: "payload altered after signing (price changed to 10)", expected: .signature) { bundle in
            var transaction = F.transaction(bundleId: bundle)
            var parts = F.parts(try F.signer.sign(transaction))
            transaction.price = 10
            parts[1] = Base64URL.encode(F.json(transaction))
            return parts.joined(separator: ".")
        },
        Forgery(why: "x5c with 2 certificates (leaf, intermediate)", expected: .chainLength(2)) { bundle in
            try F.signer.sign(
                payload: F.transaction(bundleId: bundle), x5c: Array(F.chain.x5c.prefix(2)), key: F.chain.leafKey)
        },
        Forgery(why: "x5c with 4 certificates (leaf, intermediate, root, root)", expected: .chainLength(4)) { bundle in
            try F.signer.sign(
                payload: F.transaction(bundleId: bundle), x5c: F.chain.x5c + [F.chain.x5c[2]], key: F.chain.leafKey)
        },
        Forgery(why: "chain to another, untrusted root (same names, other keys)", expected: .untrustedChain) { bundle in
            try StandInSigner(chain: F.otherChain).sign(F.transaction(bundleId: bundle))
        },
        Forgery(why: "untrusted chain that ends in the trusted root's certificate as x5c[2]", expected: .untrustedChain) {
            bundle in
            let other = F.otherChain.x5c
            return try F.signer.sign(
                payload: F.transaction(bundleId: bundle), x5c: [other[0], other[1], F.chain.x5c[2]],
                key: F.otherChain.leafKey)
        },
        Forgery(why: "leaf without OID 1.2.840.113635.100.6.11.1 (issued by the trusted intermediate)",
                expected: .missingAppleOID(.leaf)) { bundle in
            try StandInSigner(chain: try F.chain.issuingLeaf(appleOID: false)).sign(F.transaction(bundleId: bundle))
        },
        Forgery(why: "intermediate without OID 1.2.840.113635.100.6.2.1 (issued by the trusted root)",
                expected: .missingAppleOID(.intermediate)) { bundle in
            try StandInSigner(chain: try F.chain.issuingIntermediate(appleOID: false))
                .sign(F.transaction(bundleId: bundle))
        },
        Forgery(why: "intermediate that is not a certificate authority (issued by the trusted root)",
                expected: .intermediateNotCertificateAuthority) { bundle in
            try StandInSigner(chain: try F.chain.issuingIntermediate(certificateAuthority: false))
                .sign(F.transaction(bundleId: bundle))
        },
        Forgery(why: "expired leaf (valid 2020..2021; signedDate now)", expected: .certificateNotValidAt(F.now)) {
            bundle in
            let leaf = try F.chain.issuingLeaf(validity: F.date(year: 2020, month: 1)..<F.date(year: 2021, month: 1))
            return try StandInSigner(chain: leaf).sign(F.transaction(bundleId: bundle))
        },
        Forgery(why: "not-yet-valid leaf (valid 2035..2040; signedDate now)", expected: .certificateNotValidAt(F.now)) {
            bundle in
            let leaf = try F.chain.issuingLeaf(validity: F.date(year: 2035, month: 1)..<F.date(year: 2040, month: 1))
            return try StandInSigner(chain: leaf).sign(F.transaction(bundleId: bundle))
        },
        Forgery(why: "alg none (x5c present, empty signature)", expected: .algorithm("none")) { bundle in
            F.compact(
                header: #"{"alg":"none","x5c":\#(F.x5cJSON(F.chain.x5c))}"#, payload: F.json(F.transaction(bundleId: bundle)),
                signature: Data())
        },
        Forgery(why: "HS256 keyed with the leaf's public key (algorithm confusion)", expected: .algorithm("HS256")) {
            bundle in
            let header = Base64URL.encode(Array(#"{"alg":"HS256","x5c":\#(F.x5cJSON(F.chain.x5c))}"#.utf8))
            let payload = Base64URL.encode(F.json(F.transaction(bundleId: bundle)))
            let key = SymmetricKey(data: Array(F.chain.leafKey.publicKey.pemRepresentation.utf8))
            let mac = HMAC<SHA256>.authenticationCode(for: Array("\(header).\(payload)".utf8), using: key)
            return "\(header).\(payload).\(Base64URL.encode(Array(mac)))"
        },
        Forgery(why: "alg missing", expected: .algorithm("missing")) { bundle in
            F.compact(
                header: #"{"x5c":\#(F.x5cJSON(F.chain.x5c))}"#, payload: F.json(F.transaction(bundleId: bundle)),
                signature: Data(count: 64))
        },
        Forgery(why: "wrong bundleId (com.example.other), validly signed",
                expected: .bundleMismatch(expected: "BUNDLE", found: "com.example.other")) { _ in
            try F.signer.sign(F.transaction(bundleId: "com.example.other"))
        },
        Forgery(why: "environment Production (only Sandbox accepted), validly signed",
                expected: .environmentNotAccepted("Production")) { bundle in
            try F.signer.sign(F.transaction(bundleId: bundle, environment: .production))
        },
        Forgery(why: "environment Xcode, which the app does not accept", expected: .environmentNotAccepted("Xcode")) {
            bundle in
            try F.signer.sign(F.transaction(bundleId: bundle, environment: .xcode))
        },
        Forgery(why: "malformed base64 (payload segment contains '*' and '!')",
                expected: .malformed("the payload is not base64url")) { bundle in
            var parts = F.parts(try F.signer.sign(F.transaction(bundleId: bundle)))
            parts[1] = String(parts[1].prefix(40)) + "*!*!" + String(parts[1].dropFirst(44))
            return parts.joined(separator: ".")
        },
        Forgery(why: "4 segments (valid JWS + '.' + its signature again)",
                expected: .malformed("a JWS in compact form has three parts separated by two dots")) { bundle in
            let jws = try F.signer.sign(F.transaction(bundleId: bundle))
            return jws + "." + F.parts(jws)[2]
        },
        Forgery(why: "empty string", expected: .malformed("a JWS in compact form has three parts separated by two dots")) {
            _ in ""
        },
        Forgery(why: "header that is not JSON",
                expected: .malformed("the header is not a JSON object with a string alg and an array of strings x5c")) {
            bundle in
            var parts = F.parts(try F.signer.sign(F.transaction(bundleId: bundle)))
            parts[0] = Base64URL.encode(Array("not json".utf8))
            return parts.joined(separator: ".")
        },
        Forgery(why: "payload that is not a transaction's JSON",
                expected: .malformed("the payload is not the JSON of an App Store transaction")) { _ in
            try F.signer.sign(payload: ["price": "ten"])
        },
        Forgery(why: "x5c entry that is not a certificate", expected: .malformed("x5c[0] is not a DER certificate")) {
            bundle in
            try F.signer.sign(
                payload: F.transaction(bundleId: bundle), x5c: ["AAAA", F.chain.x5c[1], F.chain.x5c[2]],
                key: F.chain.leafKey)
        },
        Forgery(why: "1 MB payload (validly signed)", expected: .tooLarge(limit: SignedDataVerifier.defaultMaximumLength)) {
            bundle in
            var transaction = F.transaction(bundleId: bundle)
            transaction.offerIdentifier = String(repeating: "A", count: 1_000_000)
            return try F.signer.sign(transaction)
        },
        Forgery(why: "signed by a key other than the x5c leaf's (x5c itself valid)", expected: .signature) { bundle in
            try F.signer.sign(payload: F.transaction(bundleId: bundle), x5c: F.chain.x5c, key: P256.Signing.PrivateKey())
        },
        Forgery(why: "signature in DER instead of JWS's raw r||s", expected: .signature) { bundle in
            var parts = F.parts(try F.signer.sign(F.transaction(bundleId: bundle)))
            let signature = try F.chain.leafKey.signature(for: Array("\(parts[0]).\(parts[1])".utf8))
            parts[2] = Base64URL.encode(signature.derRepresentation)
            return parts.joined(separator: ".")
        },
        Forgery(why: "no x5c header (ES256, signed by the trusted leaf)", expected: .chainLength(0)) { bundle in
            try F.signer.sign(payload: F.transaction(bundleId: bundle), x5c: nil, key: F.chain.leafKey)
        },
        Forgery(why: "no signedDate", expected: .missingSignedDate) { bundle in
            var transaction = F.transaction(bundleId: bundle)
            transaction.signedDate = nil
            return try F.signer.sign(transaction)
        },
    ]

    @Test("each forged transaction is refused with its reason", arguments: forgeries)
    func refused(_ forgery: Forgery) async throws {
        let bundle = "com.example.forged." + forgery.why.filter { $0.isLetter }.prefix(60).lowercased()
        let jws = try forgery.make(bundle)
        let policy = SignedDataPolicy(bundleId: bundle, environments: [.sandbox])
        var expected = forgery.expected
        if case .bundleMismatch(_, let found) = expected { expected = .bundleMismatch(expected: bundle, found: found) }
        await #expect(throws: expected) {
            _ = try await F.verifier().verifyTransaction(jws, for: policy)
        }
    }

    @Test("a refusal names its reason for people and machines")
    func refusalText() {
        #expect(SignedDataRefusal.chainLength(2).code == "chain-length")
        #expect(SignedDataRefusal.missingAppleOID(.leaf).description.contains("1.2.840.113635.100.6.11.1"))
        #expect(SignedDataRefusal.certificateNotValidAt(F.now).description.contains("2026-11-25T"))
        #expect(
            SignedDataRefusal.certificateNotValidAt(AppStoreDate(millisecondsSince1970: .max)).description
                .contains("9223372036854775807 ms"))
        #expect(SignedDataRefusal.nested(field: "signedTransactionInfo", refusal: .signature).code == "signature")
    }

    @Test("inputs that are not JWS at all never crash", arguments: [
        ".", "..", "...", "a.b.c", "=.=.=", "e30.e30.", "e30.e30.AA", String(repeating: ".", count: 10_000),
        "eyJhbGciOiJFUzI1NiIsIng1YyI6W119.e30.", "eyJhbGciOiJFUzI1NiJ9.bnVsbA.", "\u{0}\u{1}.\u{FFFF}.é",
        "eyJhbGciOjF9.e30.", "W10.W10.W10",
    ])
    func garbage(_ text: String) async {
        let policy = SignedDataPolicy(bundleId: "com.example.garbage")
        await #expect(throws: SignedDataRefusal.self) {
            _ = try await F.verifier().verifyTransaction(text, for: policy)
        }
    }

    @Test("a payload with a signedDate no certificate can hold is refused, not a crash")
    func absurdSignedDate() async throws {
        let bundle = "com.example.forged.absurd-date"
        for millis in [Int64.max, Int64.min, -1] {
            let jws = try F.signer.sign(F.transaction(bundleId: bundle, signedDate: AppStoreDate(millisecondsSince1970: millis)))
            await #expect(throws: SignedDataRefusal.certificateNotValidAt(AppStoreDate(millisecondsSince1970: millis))) {
                _ = try await F.verifier().verifyTransaction(jws, for: SignedDataPolicy(bundleId: bundle))
            }
        }
    }
}
