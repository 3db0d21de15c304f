import Foundation

/// Why signed App Store data was refused. Each case says what a client needs to know to see its mistake (or
/// the forgery); nothing of a refused payload is ever returned. `code` is stable for machines, `description`
/// is one sentence for people; the HTTP edge maps both into problem details.
public enum SignedDataRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    /// The signed data is longer than the verifier accepts (`SignedDataVerifier.maximumLength`, in bytes).
    case tooLarge(limit: Int)
    /// Not a JWS in compact form, or a part of it does not decode: which part, and how.
    case malformed(String)
    /// The header's `alg` is not ES256 (`none`, HS256 and the rest are refused: algorithm confusion).
    case algorithm(String)
    /// The header's `x5c` does not hold exactly three certificates (0 when it is missing).
    case chainLength(Int)
    /// A certificate lacks Apple's marker: the leaf 1.2.840.113635.100.6.11.1, the intermediate 1.2.840.113635.100.6.2.1.
    case missingAppleOID(CertificateRole)
    /// The intermediate certificate is not a certificate authority (basic constraints).
    case intermediateNotCertificateAuthority
    /// The leaf's key is not an ECDSA P-256 key, so it cannot have made an ES256 signature.
    case leafKeyNotP256
    /// The leaf and intermediate do not chain to a root this service trusts (the third `x5c` certificate is
    /// never trusted because it is there).
    case untrustedChain
    /// A certificate of the chain was not valid at the payload's `signedDate`.
    case certificateNotValidAt(AppStoreDate)
    /// The payload has no `signedDate`, the moment at which the chain is checked.
    case missingSignedDate
    /// The ES256 signature was not made by the leaf's key over this header and payload.
    case signature
    /// The payload is for another app.
    case bundleMismatch(expected: String, found: String?)
    /// The payload's environment is not one the app accepts (Xcode only where the app allows it).
    case environmentNotAccepted(String)
    /// A production notification names another App Store app identifier than the app's.
    case appAppleIdMismatch(expected: Int64, found: Int64?)
    /// The signed data nested in a notification (`signedTransactionInfo`, `signedRenewalInfo`) was refused.
    indirect case nested(field: String, refusal: SignedDataRefusal)

    /// The certificate of the chain a refusal is about.
    public enum CertificateRole: String, Sendable, Hashable {
        case leaf, intermediate
    }

    /// A short, stable name for the kind of refusal (`chain-length`, `untrusted-chain`, ...).
    public var code: String {
        switch self {
        case .tooLarge: "too-large"
        case .malformed: "malformed"
        case .algorithm: "algorithm"
        case .chainLength: "chain-length"
        case .missingAppleOID(let role): "missing-apple-oid-\(role.rawValue)"
        case .intermediateNotCertificateAuthority: "intermediate-not-ca"
        case .leafKeyNotP256: "leaf-key"
        case .untrustedChain: "untrusted-chain"
        case .certificateNotValidAt: "certificate-not-valid"
        case .missingSignedDate: "missing-signed-date"
        case .signature: "signature"
        case .bundleMismatch: "bundle-mismatch"
        case .environmentNotAccepted: "environment-not-accepted"
        case .appAppleIdMismatch: "app-apple-id-mismatch"
        case .nested(_, let refusal): refusal.code
        }
    }

    public var description: String {
        switch self {
        case .tooLarge(let limit):
            "the signed data is longer than \(limit) bytes"
        case .malformed(let what):
            "the signed data is malformed: \(what)"
        case .algorithm(let name):
            "the JWS header's alg is \(name); App Store signed data uses ES256 only"
        case .chainLength(let count):
            "the JWS header's x5c holds \(count) certificate(s); App Store signed data carries exactly 3"
        case .missingAppleOID(.leaf):
            "the leaf certificate lacks Apple's OID 1.2.840.113635.100.6.11.1"
        case .missingAppleOID(.intermediate):
            "the intermediate certificate lacks Apple's OID 1.2.840.113635.100.6.2.1"
        case .intermediateNotCertificateAuthority:
            "the intermediate certificate is not a certificate authority"
        case .leafKeyNotP256:
            "the leaf certificate's key is not an ECDSA P-256 key"
        case .untrustedChain:
            "the certificates do not chain to a trusted root"
        case .certificateNotValidAt(let signedDate):
            "a certificate of the chain was not valid at signedDate \(Self.format(signedDate))"
        case .missingSignedDate:
            "the payload has no signedDate"
        case .signature:
            "the signature does not match the header and payload for the leaf certificate's key"
        case .bundleMismatch(let expected, let found):
            "the payload's bundleId is \(found.map { "\"\($0)\"" } ?? "missing"), not \"\(expected)\""
        case .environmentNotAccepted(let name):
            "the environment \"\(name)\" is not accepted for this app"
        case .appAppleIdMismatch(let expected, let found):
            "the notification's appAppleId is \(found.map(String.init) ?? "missing"), not \(expected)"
        case .nested(let field, let refusal):
            "\(field): \(refusal)"
        }
    }

    /// ISO 8601 for the years a calendar prints (0001 to 9999), milliseconds beyond: a forged date may be anything.
    private static func format(_ date: AppStoreDate) -> String {
        guard (-62_135_596_800_000...253_402_300_799_999).contains(date.millisecondsSince1970) else {
            return "\(date.millisecondsSince1970) ms since 1970"
        }
        return date.date.formatted(.iso8601)
    }
}
