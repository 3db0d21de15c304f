import CatalogCore
import Crypto
import Foundation

/// A JWS in compact serialization (`header.payload.signature`, RFC 7515 §7.1), split and decoded but not yet
/// trusted. It keeps the digest of the signing input (the text up to the second dot), which is what the
/// signature covers.
struct CompactJWS {
    /// The header's fields this service reads. Other fields are allowed (Apple's carry none that matter).
    struct Header {
        var alg: String?
        var x5c: [String]?
    }

    let header: Header
    /// The payload's JSON, decoded from base64url.
    let payload: Data
    /// The signature's bytes (64 for ES256: r and s, 32 bytes each).
    let signature: Data
    /// SHA-256 of the ASCII `header.payload`.
    let signingInputDigest: SHA256Digest

    private static let decoder = JSONDecoder()

    init(_ text: String) throws(SignedDataRefusal) {
        var text = text
        let parts = text.withUTF8 { utf8 -> (Data?, Data?, Data?, SHA256Digest)? in
            let bytes = UnsafeRawBufferPointer(utf8)
            guard let first = bytes.firstIndex(of: UInt8(ascii: ".")) else { return nil }
            guard let second = bytes[(first + 1)...].firstIndex(of: UInt8(ascii: ".")) else { return nil }
            if bytes[(second + 1)...].contains(UInt8(ascii: ".")) { return nil }
            return (
                Base64URL.decode(UnsafeRawBufferPointer(rebasing: bytes[..<first])),
                Base64URL.decode(UnsafeRawBufferPointer(rebasing: bytes[(first + 1)..<second])),
                Base64URL.decode(UnsafeRawBufferPointer(rebasing: bytes[(second + 1)...])),
                SHA256.hash(data: UnsafeRawBufferPointer(rebasing: bytes[..<second]))
            )
        }
        guard let (header, payload, signature, digest) = parts else {
            throw .malformed("a JWS in compact form has three parts separated by two dots")
        }
        guard let header, !header.isEmpty else { throw .malformed("the header is not base64url") }
        guard let payload, !payload.isEmpty else { throw .malformed("the payload is not base64url") }
        guard let signature else { throw .malformed("the signature is not base64url") }
        // Read by name rather than by `JSONDecoder`, whose containers cost more than the text: the header is the
        // three certificates, 3.6 KB, and every signed transaction has one.
        let malformed = SignedDataRefusal.malformed(
            "the header is not a JSON object with a string alg and an array of strings x5c")
        guard let fields = String(validating: header, as: UTF8.self).flatMap(JSONFields.init(parsing:)) else {
            throw malformed
        }
        do {
            self.header = Header(alg: try fields.string(ifPresent: "alg"), x5c: try fields.strings(ifPresent: "x5c"))
        } catch {
            throw malformed
        }
        self.payload = payload
        self.signature = signature
        self.signingInputDigest = digest
    }

    /// The payload decoded as `Payload`.
    func decodePayload<Payload: SignedPayload>(as type: Payload.Type) throws(SignedDataRefusal) -> Payload {
        guard let decoded = Payload.decode(payload) else {
            throw .malformed("the payload is not the JSON of an App Store \(Payload.kind)")
        }
        return decoded
    }

    /// `payload` decoded as `Payload` by `JSONDecoder`, or `nil`.
    static func decode<Payload: Decodable>(_ payload: Data, as type: Payload.Type) -> Payload? {
        try? decoder.decode(Payload.self, from: payload)
    }

    /// Whether `key` made `signature` over the signing input with ECDSA P-256 and SHA-256 (ES256, RFC 7518 §3.4:
    /// the signature is r and s as 32 big-endian bytes each, not DER).
    func isSigned(by key: P256.Signing.PublicKey) -> Bool {
        guard signature.count == 64,
            let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature)
        else { return false }
        return key.isValidSignature(ecdsa, for: signingInputDigest)
    }
}

/// What the verifier needs of every kind of signed payload.
protocol SignedPayload: Decodable, Sendable {
    /// The kind's name in refusals ("transaction", "notification", ...).
    static var kind: String { get }
    /// Whether the kind names its app (renewal information does not).
    static var namesBundle: Bool { get }
    /// When the App Store signed it: the chain must have been valid then.
    var signedDate: AppStoreDate? { get }
    /// The environment the payload says it belongs to, as written.
    var claimedEnvironment: String? { get }
    /// The bundle the payload says it belongs to.
    var claimedBundleId: String? { get }
    /// The payload's JSON decoded, or `nil` when it is not this kind's.
    static func decode(_ payload: Data) -> Self?
}

extension SignedPayload {
    static func decode(_ payload: Data) -> Self? { CompactJWS.decode(payload, as: Self.self) }
}
