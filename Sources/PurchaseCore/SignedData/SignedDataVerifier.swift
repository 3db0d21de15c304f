import Crypto
import Foundation
import SwiftASN1
@_spi(FixedExpiryValidationTime) @_spi(DisableValidityCheck) import X509

/// Verifies App Store signed data offline: StoreKit 2 transactions (`jwsRepresentation`), renewal information,
/// and App Store Server Notifications V2 (`signedPayload`), for one app's `SignedDataPolicy`.
///
/// The rules (DESIGN.md, "Purchases"), in the order they are checked:
/// 1. a JWS in compact form, at most `maximumLength` bytes; the header's `alg` is ES256 (never `none`, HS256
///    or another: the key comes from the certificate, not from the header);
/// 2. the payload decodes and has a `signedDate`;
/// 3. `x5c` holds exactly three certificates; the leaf carries Apple's OID 1.2.840.113635.100.6.11.1, the
///    intermediate 1.2.840.113635.100.6.2.1 and is a certificate authority; leaf and intermediate chain to one
///    of the trusted roots (`x5c[2]` is never looked at: a root is trusted because it is configured, not
///    because it was sent); every certificate of the chain was valid at the payload's `signedDate` (not now:
///    a transaction signed last year by a leaf that has since expired is still Apple's);
/// 4. the ES256 signature (raw r‖s, 64 bytes) was made by the leaf's P-256 key over the header and payload;
/// 5. the claims: `environment` is one the policy accepts, `bundleId` the policy's (and for a Production
///    notification, `appAppleId` when the policy has one).
///
/// Data claiming the "Xcode" or "LocalTesting" environment (local StoreKit testing, signed by Xcode's own
/// certificate, which chains to nothing) is refused unless the policy's `acceptsXcode` is set. Then, as in
/// Apple's library, no chain is checked; this verifier still requires ES256 and a certificate in `x5c`
/// whose key made the signature (which catches corruption, not forgery), and checks the bundle. Such data is
/// returned with its environment (`.xcode` or `.localTesting`) and `isChainVerified` false.
///
/// Verified chains are cached (`VerifiedChainCache`), so that once a leaf is known a verification costs one
/// ES256 check and decoding the JSON. One verifier serves every app: the policy is a parameter of each call.
///
/// ```swift
/// let verifier = SignedDataVerifier(roots: .appleRootCAG3)
/// let policy = SignedDataPolicy(bundleId: "com.example.app", environments: [.production, .sandbox])
/// do {
///     let verified = try await verifier.verifyTransaction(body.signedTransaction, for: policy)
///     record(verified.payload, environment: verified.environment)
/// } catch {
///     answer422(error.code, error.description)   // error is a SignedDataRefusal
/// }
/// ```
public struct SignedDataVerifier: Sendable {
    /// The longest signed data accepted, in bytes. Apple's transactions are about 4 KB (3.6 KB of it the
    /// certificates) and notifications, which carry a transaction and renewal information, under 16 KB.
    public static let defaultMaximumLength = 64 * 1024

    /// The roots chains must end in.
    public let roots: TrustedRoots
    /// Chains verified before.
    public let cache: VerifiedChainCache
    /// The longest signed data accepted, in bytes of its text.
    public let maximumLength: Int

    /// A verifier trusting `roots` (Apple Root CA - G3 by default).
    public init(
        roots: TrustedRoots = .appleRootCAG3,
        cache: VerifiedChainCache = VerifiedChainCache(),
        maximumLength: Int = SignedDataVerifier.defaultMaximumLength
    ) {
        self.roots = roots
        self.cache = cache
        self.maximumLength = maximumLength
    }

    /// A StoreKit 2 signed transaction (`Transaction.jwsRepresentation`, or `signedTransactionInfo`), verified and
    /// decoded for `policy`; every refusal is a `SignedDataRefusal`.
    public func verifyTransaction(
        _ signedTransaction: String, for policy: SignedDataPolicy
    ) async throws(SignedDataRefusal) -> Verified<AppStoreTransaction> {
        try await verify(signedTransaction, as: AppStoreTransaction.self, for: policy)
    }

    /// A subscription's signed renewal information (`signedRenewalInfo`), verified and decoded for `policy`.
    /// Renewal information names no bundle; its environment is checked.
    public func verifyRenewalInfo(
        _ signedRenewalInfo: String, for policy: SignedDataPolicy
    ) async throws(SignedDataRefusal) -> Verified<AppStoreRenewalInfo> {
        try await verify(signedRenewalInfo, as: AppStoreRenewalInfo.self, for: policy)
    }

    /// An App Store Server Notification V2 (`signedPayload`), verified and decoded for `policy`, with the
    /// transaction and renewal information it carries verified too (same app; same environment as the
    /// notification). A refusal of a nested part is `.nested(field:refusal:)`.
    public func verifyNotification(
        _ signedPayload: String, for policy: SignedDataPolicy
    ) async throws(SignedDataRefusal) -> VerifiedNotification {
        let notification = try await verify(signedPayload, as: AppStoreNotification.self, for: policy)
        if notification.environment == .production, let expected = policy.appAppleId {
            let found = notification.payload.claimedAppAppleId
            guard found == expected else { throw .appAppleIdMismatch(expected: expected, found: found) }
        }
        var transaction: Verified<AppStoreTransaction>?
        if let signed = notification.payload.data?.signedTransactionInfo {
            transaction = try await nested("signedTransactionInfo", of: notification) { () throws(SignedDataRefusal) in
                try await verify(signed, as: AppStoreTransaction.self, for: policy)
            }
        }
        var renewalInfo: Verified<AppStoreRenewalInfo>?
        if let signed = notification.payload.data?.signedRenewalInfo {
            renewalInfo = try await nested("signedRenewalInfo", of: notification) { () throws(SignedDataRefusal) in
                try await verify(signed, as: AppStoreRenewalInfo.self, for: policy)
            }
        }
        return VerifiedNotification(notification: notification, transaction: transaction, renewalInfo: renewalInfo)
    }

    /// Runs the verification of a notification's nested part, naming the field in a refusal, and requires the
    /// part to be of the notification's environment.
    private func nested<Payload>(
        _ field: String,
        of notification: Verified<AppStoreNotification>,
        _ verification: () async throws(SignedDataRefusal) -> Verified<Payload>
    ) async throws(SignedDataRefusal) -> Verified<Payload> {
        let verified: Verified<Payload>
        do {
            verified = try await verification()
        } catch {
            throw .nested(field: field, refusal: error)
        }
        guard verified.environment == notification.environment else {
            throw .nested(field: field, refusal: .environmentNotAccepted(verified.environment.rawValue))
        }
        return verified
    }

    /// The rules above, for any kind of payload.
    func verify<Payload: SignedPayload>(
        _ text: String, as type: Payload.Type, for policy: SignedDataPolicy
    ) async throws(SignedDataRefusal) -> Verified<Payload> {
        guard text.utf8.count <= maximumLength else { throw .tooLarge(limit: maximumLength) }
        let jws = try CompactJWS(text)
        guard let algorithm = jws.header.alg, algorithm == "ES256" else {
            throw .algorithm(jws.header.alg ?? "missing")
        }
        let payload = try jws.decodePayload(as: Payload.self)
        guard let signedDate = payload.signedDate else { throw .missingSignedDate }
        let x5c = jws.header.x5c ?? []

        let claimed = payload.claimedEnvironment
        if let local = claimed.flatMap(AppStoreEnvironment.init(rawValue:)), local == .xcode || local == .localTesting {
            guard policy.acceptsXcode else { throw .environmentNotAccepted(local.rawValue) }
            guard let first = x5c.first else { throw .chainLength(0) }
            guard jws.isSigned(by: try Self.key(ofSelfSigned: first)) else { throw .signature }
            try Self.checkBundle(of: payload, for: policy)
            return Verified(payload: payload, environment: local, signedDate: signedDate, isChainVerified: false)
        }

        guard x5c.count == 3 else { throw .chainLength(x5c.count) }
        let chain = try await verifiedChain(leaf: x5c[0], intermediate: x5c[1], at: signedDate)
        guard jws.isSigned(by: chain.leafKey) else { throw .signature }

        guard let name = claimed, let environment = AppStoreEnvironment(rawValue: name),
            environment == .production || environment == .sandbox, policy.environments.contains(environment)
        else { throw .environmentNotAccepted(claimed ?? "missing") }
        try Self.checkBundle(of: payload, for: policy)
        return Verified(payload: payload, environment: environment, signedDate: signedDate, isChainVerified: true)
    }

    private static func checkBundle<Payload: SignedPayload>(
        of payload: Payload, for policy: SignedDataPolicy
    ) throws(SignedDataRefusal) {
        guard Payload.namesBundle else { return }
        guard payload.claimedBundleId == policy.bundleId else {
            throw .bundleMismatch(expected: policy.bundleId, found: payload.claimedBundleId)
        }
    }

    /// The chain of `leaf` and `intermediate` to a trusted root, valid at `signedDate`: from the cache when it
    /// holds it with a window that covers `signedDate`, else verified in full and cached.
    private func verifiedChain(
        leaf: String, intermediate: String, at signedDate: AppStoreDate
    ) async throws(SignedDataRefusal) -> VerifiedChain {
        let key = VerifiedChainCache.Key(leaf: leaf, intermediate: intermediate, roots: roots.identity)
        let date = signedDate.date
        if let cached = cache.chain(for: key), cached.isValid(at: date) { return cached }
        let chain = try await verifyChain(leaf: leaf, intermediate: intermediate, at: signedDate)
        cache.insert(chain, for: key)
        return chain
    }

    /// Full verification with swift-certificates' `Verifier`: RFC 5280 at `signedDate` and Apple's policy.
    private func verifyChain(
        leaf leafText: String, intermediate intermediateText: String, at signedDate: AppStoreDate
    ) async throws(SignedDataRefusal) -> VerifiedChain {
        let leaf = try Self.certificate(leafText, position: 0)
        let intermediate = try Self.certificate(intermediateText, position: 1)
        if let refusal = AppStoreChainPolicy.refusal(leaf: leaf, intermediate: intermediate) { throw refusal }
        guard let leafKey = P256.Signing.PublicKey(leaf.publicKey) else { throw .leafKeyNotP256 }

        // Outside the leaf's or intermediate's validity no chain can be valid. Checking this first also keeps
        // a forged date (year 300,000,000) away from the verifier, which only takes dates a certificate can hold.
        let date = signedDate.date
        for certificate in [leaf, intermediate] where !(certificate.notValidBefore...certificate.notValidAfter).contains(date) {
            throw .certificateNotValidAt(signedDate)
        }

        let intermediates = CertificateStore([intermediate])
        var verifier = Verifier(rootCertificates: roots.store) {
            RFC5280Policy(fixedExpiryValidationTime: date)
            AppStoreChainPolicy()
        }
        switch await verifier.validate(leaf: leaf, intermediates: intermediates) {
        case .validCertificate(let chain):
            return VerifiedChain(
                leafKey: leafKey,
                validFrom: chain.map(\.notValidBefore).max() ?? date,
                validUntil: chain.map(\.notValidAfter).min() ?? date)
        case .couldNotValidate:
            // Tell a root that was not valid at signedDate from a chain that ends in no trusted root.
            var timeless = Verifier(rootCertificates: roots.store) {
                RFC5280Policy.withValidityCheckDisabled()
                AppStoreChainPolicy()
            }
            if case .validCertificate = await timeless.validate(leaf: leaf, intermediates: intermediates) {
                throw .certificateNotValidAt(signedDate)
            }
            throw .untrustedChain
        }
    }

    /// The certificate in an `x5c` entry (standard base64 of DER, RFC 7515 §4.1.6).
    private static func certificate(_ text: String, position: Int) throws(SignedDataRefusal) -> Certificate {
        guard let der = Data(base64Encoded: text) else {
            throw .malformed("x5c[\(position)] is not base64")
        }
        do {
            return try Certificate(derEncoded: Array(der))
        } catch {
            throw .malformed("x5c[\(position)] is not a DER certificate")
        }
    }

    /// The P-256 key of the certificate Xcode puts in `x5c` for local test data.
    private static func key(ofSelfSigned text: String) throws(SignedDataRefusal) -> P256.Signing.PublicKey {
        guard let key = P256.Signing.PublicKey(try certificate(text, position: 0).publicKey) else {
            throw .leafKeyNotP256
        }
        return key
    }
}
