import SwiftASN1
import X509

/// Apple's rules for the chain of App Store signed data, as a swift-certificates policy (beside RFC 5280's):
/// leaf, intermediate and root exactly; the leaf marked with OID 1.2.840.113635.100.6.11.1 (App Store
/// receipt signing), the intermediate with 1.2.840.113635.100.6.2.1 (Apple Worldwide Developer Relations) and a
/// certificate authority. Apple's own library applies the same policy (its `AppStoreOIDPolicy`).
struct AppStoreChainPolicy: VerifierPolicy {
    static let leafOID: ASN1ObjectIdentifier = [1, 2, 840, 113_635, 100, 6, 11, 1]
    static let intermediateOID: ASN1ObjectIdentifier = [1, 2, 840, 113_635, 100, 6, 2, 1]

    /// The OIDs are markers, not constraints: Apple issues them non-critical, and a critical one is refused.
    let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = []

    func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) -> PolicyEvaluationResult {
        guard chain.count == 3 else {
            return .failsToMeetPolicy(reason: "App Store chains are leaf, intermediate and root")
        }
        if let refusal = Self.refusal(leaf: chain[0], intermediate: chain[1]) {
            return .failsToMeetPolicy(reason: "\(refusal)")
        }
        return .meetsPolicy
    }

    /// Why the leaf and intermediate do not fit Apple's chain, or nil when they do. The verifier asks before
    /// chain building, so that the client learns which rule failed.
    static func refusal(leaf: Certificate, intermediate: Certificate) -> SignedDataRefusal? {
        guard leaf.extensions[oid: leafOID] != nil else { return .missingAppleOID(.leaf) }
        guard intermediate.extensions[oid: intermediateOID] != nil else { return .missingAppleOID(.intermediate) }
        guard case .isCertificateAuthority = try? intermediate.extensions.basicConstraints else {
            return .intermediateNotCertificateAuthority
        }
        return nil
    }
}
