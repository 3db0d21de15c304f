import Crypto
import Foundation
import SwiftASN1
import X509

/// The root certificates App Store signed data must chain to. By default Apple Root CA - G3 alone
/// (`appleRootCAG3`); `APPSTORE_ROOT_CERTIFICATES` replaces it for tests and staging (the executable reads the
/// files, `init(pemOrDER:)` parses each).
public struct TrustedRoots: Sendable {
    /// The roots, in the order given.
    public let certificates: [Certificate]
    /// The same, as swift-certificates' `Verifier` takes them.
    let store: CertificateStore
    /// SHA-256 of the SHA-256 of each root's DER, in order: a verified chain is cached for one set of roots only.
    public let identity: [UInt8]

    /// Trusts exactly `certificates` (at least one).
    public init(_ certificates: [Certificate]) throws(TrustedRootsError) {
        guard !certificates.isEmpty else { throw .empty }
        var hasher = SHA256()
        for (index, certificate) in certificates.enumerated() {
            var serializer = DER.Serializer()
            guard (try? serializer.serialize(certificate)) != nil else { throw .notACertificate(index: index) }
            hasher.update(data: Array(SHA256.hash(data: serializer.serializedBytes)))
        }
        self.certificates = certificates
        self.store = CertificateStore(certificates)
        self.identity = Array(hasher.finalize())
    }

    /// Trusts the certificates in `files`, each PEM (one certificate or more) or DER (one), as the files of
    /// `APPSTORE_ROOT_CERTIFICATES` hold them.
    public init(pemOrDER files: [[UInt8]]) throws(TrustedRootsError) {
        var certificates: [Certificate] = []
        for (index, bytes) in files.enumerated() {
            certificates += try Self.certificates(in: bytes, file: index)
        }
        try self.init(certificates)
    }

    /// Apple Root CA - G3, the service's default root.
    public static let appleRootCAG3: TrustedRoots = {
        // The bytes are a constant checked by a test (fingerprint); they cannot fail to parse at run time.
        let der = Data(base64Encoded: AppleRootCAG3.base64DER, options: .ignoreUnknownCharacters)!
        return try! TrustedRoots([Certificate(derEncoded: Array(der))])
    }()

    /// The certificates of one file: PEM blocks when it has any, else one DER certificate.
    static func certificates(in bytes: [UInt8], file: Int) throws(TrustedRootsError) -> [Certificate] {
        let text = String(decoding: bytes, as: UTF8.self)
        if text.contains("-----BEGIN") {
            do {
                let documents = try PEMDocument.parseMultiple(pemString: text)
                    .filter { $0.discriminator == "CERTIFICATE" }
                guard !documents.isEmpty else { throw TrustedRootsError.notACertificate(index: file) }
                return try documents.map { try Certificate(pemDocument: $0) }
            } catch {
                throw .notACertificate(index: file)
            }
        }
        do {
            return [try Certificate(derEncoded: bytes)]
        } catch {
            throw .notACertificate(index: file)
        }
    }
}

/// Why root certificates could not be loaded.
public enum TrustedRootsError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No root at all: every signed payload would be refused.
    case empty
    /// The file at this position (0 for the first) holds no certificate in PEM or DER.
    case notACertificate(index: Int)

    public var description: String {
        switch self {
        case .empty: "no root certificate was given"
        case .notACertificate(let index): "root certificate file \(index + 1) is not a PEM or DER certificate"
        }
    }
}
