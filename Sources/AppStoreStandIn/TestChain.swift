import Crypto
import Foundation
import PurchaseCore
import SwiftASN1
import X509

/// A certificate chain shaped like the App Store's, for the stand-in's signed data: a self-signed P-256 root;
/// an intermediate certificate authority (path length 0, keyCertSign) carrying Apple's OID
/// 1.2.840.113635.100.6.2.1; a leaf (digitalSignature) carrying 1.2.840.113635.100.6.11.1; each with subject and
/// authority key identifiers, as the benchmark's `gen_chain.py` makes them. A service trusts it only when its
/// root is configured (`APPSTORE_ROOT_CERTIFICATES`).
///
/// Made fresh (`generate`), read from a folder of PEM files (`init(directory:)`: the benchmark's
/// `/tmp/purchases-bench-data/chain`, or one `write(to:)` made) and written to one. It also issues the
/// certificates of forged data for tests (`issuingLeaf`, `issuingIntermediate`), which needs the root's and
/// intermediate's keys; a chain read without them can sign but not issue.
///
/// Sendable although swift-crypto 3 does not mark its private keys so: nothing changes a chain once made, and
/// signing only reads the key.
public struct TestChain: @unchecked Sendable {
    public let root: Certificate
    public let intermediate: Certificate
    public let leaf: Certificate
    /// The key of `leaf`, which signs the data.
    public let leafKey: P256.Signing.PrivateKey
    /// The key of `root`, when known: it issues intermediates.
    public let rootKey: P256.Signing.PrivateKey?
    /// The key of `intermediate`, when known: it issues leaves.
    public let intermediateKey: P256.Signing.PrivateKey?

    /// The validity of generated certificates, as `gen_chain.py`'s: 2020-01-01 to 2040-01-01 UTC.
    public static let defaultValidity = Date(timeIntervalSince1970: 1_577_836_800)..<Date(timeIntervalSince1970: 2_208_988_800)

    static let rootName = "Stand-in Root CA - G3"
    static let intermediateName = "Stand-in Worldwide Developer Relations Certification Authority"
    static let leafName = "Stand-in Prod ECC Mac App Store and iTunes Store Receipt Signing"

    /// A chain of the given certificates and keys.
    public init(
        root: Certificate, intermediate: Certificate, leaf: Certificate, leafKey: P256.Signing.PrivateKey,
        rootKey: P256.Signing.PrivateKey? = nil, intermediateKey: P256.Signing.PrivateKey? = nil
    ) {
        self.root = root
        self.intermediate = intermediate
        self.leaf = leaf
        self.leafKey = leafKey
        self.rootKey = rootKey
        self.intermediateKey = intermediateKey
    }

    /// A new chain with new keys, the intermediate and leaf valid for `validity`, the root for `rootValidity`
    /// (the same unless given).
    public static func generate(
        validity: Range<Date> = defaultValidity, rootValidity: Range<Date>? = nil
    ) throws -> TestChain {
        let rootKey = P256.Signing.PrivateKey()
        let root = try issue(
            .root, name: rootName, key: rootKey.publicKey, issuer: nil, issuerKey: rootKey,
            validity: rootValidity ?? validity, marker: nil)
        let intermediateKey = P256.Signing.PrivateKey()
        let intermediate = try issue(
            .intermediate, name: intermediateName, key: intermediateKey.publicKey, issuer: root, issuerKey: rootKey,
            validity: validity, marker: AppleOID.intermediate)
        let leafKey = P256.Signing.PrivateKey()
        let leaf = try issue(
            .leaf, name: leafName, key: leafKey.publicKey, issuer: intermediate, issuerKey: intermediateKey,
            validity: validity, marker: AppleOID.leaf)
        return TestChain(
            root: root, intermediate: intermediate, leaf: leaf, leafKey: leafKey, rootKey: rootKey,
            intermediateKey: intermediateKey)
    }

    /// The same root and intermediate with a new leaf (and key): with Apple's OID or without, valid when asked.
    public func issuingLeaf(appleOID: Bool = true, validity: Range<Date> = defaultValidity) throws -> TestChain {
        guard let intermediateKey else { throw TestChainError.missingKey("intermediate.key") }
        let key = P256.Signing.PrivateKey()
        let leaf = try Self.issue(
            .leaf, name: Self.leafName, key: key.publicKey, issuer: intermediate, issuerKey: intermediateKey,
            validity: validity, marker: appleOID ? AppleOID.leaf : nil)
        return TestChain(
            root: root, intermediate: intermediate, leaf: leaf, leafKey: key, rootKey: rootKey,
            intermediateKey: intermediateKey)
    }

    /// The same root with a new intermediate and a new leaf under it. The intermediate carries Apple's OID or
    /// not, and is a certificate authority or (forged) not.
    public func issuingIntermediate(appleOID: Bool = true, certificateAuthority: Bool = true) throws -> TestChain {
        guard let rootKey else { throw TestChainError.missingKey("root.key") }
        let intermediateKey = P256.Signing.PrivateKey()
        let intermediate = try Self.issue(
            certificateAuthority ? .intermediate : .leaf, name: Self.intermediateName,
            key: intermediateKey.publicKey, issuer: root, issuerKey: rootKey, validity: Self.defaultValidity,
            marker: appleOID ? AppleOID.intermediate : nil)
        let leafKey = P256.Signing.PrivateKey()
        let leaf = try Self.issue(
            .leaf, name: Self.leafName, key: leafKey.publicKey, issuer: intermediate, issuerKey: intermediateKey,
            validity: Self.defaultValidity, marker: AppleOID.leaf)
        return TestChain(
            root: root, intermediate: intermediate, leaf: leaf, leafKey: leafKey, rootKey: rootKey,
            intermediateKey: intermediateKey)
    }

    /// The root, as the trusted roots of a verifier that should accept this chain's data.
    public var trustedRoots: TrustedRoots {
        // One certificate: TrustedRoots refuses only an empty list or one it cannot serialize, which ours can.
        try! TrustedRoots([root])
    }

    /// The JWS header's `x5c`: leaf, intermediate, root, each base64 DER.
    public var x5c: [String] {
        [leaf, intermediate, root].map { Data(Self.der($0)).base64EncodedString() }
    }

    // MARK: Files

    /// Reads `root.pem`, `intermediate.pem`, `leaf.pem` and `leaf.key` (PKCS#8 or SEC1 PEM) from `directory`,
    /// and `root.key` and `intermediate.key` when they are there.
    public init(directory: URL) throws {
        func text(_ name: String) throws -> String {
            try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
        }
        func optionalKey(_ name: String) throws -> P256.Signing.PrivateKey? {
            let url = directory.appendingPathComponent(name)
            guard FileManager.default.fileExists(atPath: url.path) else { return nil }
            return try P256.Signing.PrivateKey(pemRepresentation: try text(name))
        }
        self.init(
            root: try Certificate(pemEncoded: try text("root.pem")),
            intermediate: try Certificate(pemEncoded: try text("intermediate.pem")),
            leaf: try Certificate(pemEncoded: try text("leaf.pem")),
            leafKey: try P256.Signing.PrivateKey(pemRepresentation: try text("leaf.key")),
            rootKey: try optionalKey("root.key"),
            intermediateKey: try optionalKey("intermediate.key"))
    }

    /// Writes the files `gen_chain.py` writes: `root.pem`, `root.der`, `intermediate.pem`, `leaf.pem`, and the
    /// keys it has (`leaf.key`, `root.key`, `intermediate.key`, PKCS#8 PEM, readable by the owner only).
    public func write(to directory: URL) throws {
        let files = FileManager.default
        try files.createDirectory(at: directory, withIntermediateDirectories: true)
        func write(_ name: String, _ bytes: [UInt8], secret: Bool = false) throws {
            let url = directory.appendingPathComponent(name)
            try Data(bytes).write(to: url, options: .atomic)
            try files.setAttributes([.posixPermissions: secret ? 0o600 : 0o644], ofItemAtPath: url.path)
        }
        try write("root.pem", Array(try root.serializeAsPEM().pemString.utf8) + [0x0A])
        try write("root.der", Self.der(root))
        try write("intermediate.pem", Array(try intermediate.serializeAsPEM().pemString.utf8) + [0x0A])
        try write("leaf.pem", Array(try leaf.serializeAsPEM().pemString.utf8) + [0x0A])
        try write("leaf.key", Array(leafKey.pemRepresentation.utf8) + [0x0A], secret: true)
        if let rootKey { try write("root.key", Array(rootKey.pemRepresentation.utf8) + [0x0A], secret: true) }
        if let intermediateKey {
            try write("intermediate.key", Array(intermediateKey.pemRepresentation.utf8) + [0x0A], secret: true)
        }
    }

    // MARK: Issuing

    /// Apple's markers in its signing chain.
    public enum AppleOID {
        /// On the leaf: App Store receipt signing.
        public static let leaf: ASN1ObjectIdentifier = [1, 2, 840, 113_635, 100, 6, 11, 1]
        /// On the intermediate: Apple Worldwide Developer Relations.
        public static let intermediate: ASN1ObjectIdentifier = [1, 2, 840, 113_635, 100, 6, 2, 1]
    }

    enum Kind { case root, intermediate, leaf }

    static func issue(
        _ kind: Kind, name: String, key: P256.Signing.PublicKey, issuer: Certificate?,
        issuerKey: P256.Signing.PrivateKey, validity: Range<Date>, marker: ASN1ObjectIdentifier?
    ) throws -> Certificate {
        let subject = try DistinguishedName {
            CommonName(name)
            OrganizationalUnitName("Stand-in Certification Authority")
            OrganizationName("IAP Catalog stand-in")
            CountryName("US")
        }
        let publicKey = Certificate.PublicKey(key)
        let issuerPublicKey = Certificate.PublicKey(issuerKey.publicKey)
        // ASN.1 NULL, the value Apple gives its marker extensions.
        let null: ArraySlice<UInt8> = [0x05, 0x00]
        let extensions = try Certificate.Extensions {
            switch kind {
            case .root:
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            case .intermediate:
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            case .leaf:
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
            }
            SubjectKeyIdentifier(hash: publicKey)
            if kind != .root {
                AuthorityKeyIdentifier(keyIdentifier: SubjectKeyIdentifier(hash: issuerPublicKey).keyIdentifier)
            }
            if let marker {
                Certificate.Extension(oid: marker, critical: false, value: null)
            }
        }
        return try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: publicKey,
            notValidBefore: validity.lowerBound,
            notValidAfter: validity.upperBound,
            issuer: issuer?.subject ?? subject,
            subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: extensions,
            issuerPrivateKey: Certificate.PrivateKey(issuerKey))
    }

    /// The DER bytes of `certificate`.
    static func der(_ certificate: Certificate) -> [UInt8] {
        var serializer = DER.Serializer()
        // A certificate made or parsed by swift-certificates always serializes.
        try! serializer.serialize(certificate)
        return serializer.serializedBytes
    }
}

/// Why a test chain could not be used.
public enum TestChainError: Error, Sendable, CustomStringConvertible {
    /// Issuing a certificate needs the issuer's key, which the chain was read without.
    case missingKey(String)

    public var description: String {
        switch self {
        case .missingKey(let file): "the chain has no \(file): it can sign but not issue certificates"
        }
    }
}
