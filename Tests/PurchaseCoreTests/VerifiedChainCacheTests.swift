import AppStoreStandIn
import Foundation
import PurchaseCore
import Testing

/// The cache of verified chains saves work and never changes an outcome.
@Suite("Verified chain cache")
struct VerifiedChainCacheTests {
    typealias F = SignedDataFixtures

    @Test("a chain is verified once and then taken from the cache")
    func reused() async throws {
        let bundle = "com.example.cache.reused"
        let cache = VerifiedChainCache()
        let verifier = SignedDataVerifier(roots: F.chain.trustedRoots, cache: cache)
        for _ in 0..<3 {
            _ = try await verifier.verifyTransaction(
                try F.signer.sign(F.transaction(bundleId: bundle)), for: SignedDataPolicy(bundleId: bundle))
        }
        #expect(cache.count == 1)
    }

    @Test("a cached chain still checks each payload's signedDate")
    func signedDateChecked() async throws {
        let bundle = "com.example.cache.signed-date"
        let old = StandInSigner(
            chain: try F.chain.issuingLeaf(validity: F.date(year: 2020, month: 1)..<F.date(year: 2021, month: 1)))
        let verifier = SignedDataVerifier(roots: F.chain.trustedRoots, cache: VerifiedChainCache())
        let policy = SignedDataPolicy(bundleId: bundle)
        _ = try await verifier.verifyTransaction(
            try old.sign(F.transaction(bundleId: bundle, signedDate: AppStoreDate(F.date(year: 2020)))), for: policy)
        #expect(verifier.cache.count == 1)
        await #expect(throws: SignedDataRefusal.certificateNotValidAt(F.now)) {
            _ = try await verifier.verifyTransaction(try old.sign(F.transaction(bundleId: bundle)), for: policy)
        }
        let before = AppStoreDate(F.date(year: 2019))
        await #expect(throws: SignedDataRefusal.certificateNotValidAt(before)) {
            _ = try await verifier.verifyTransaction(
                try old.sign(F.transaction(bundleId: bundle, signedDate: before)), for: policy)
        }
    }

    @Test("a chain cached for one set of roots is not used for another")
    func otherRoots() async throws {
        let bundle = "com.example.cache.other-roots"
        let shared = VerifiedChainCache()
        let trusting = SignedDataVerifier(roots: F.chain.trustedRoots, cache: shared)
        let other = SignedDataVerifier(roots: F.otherChain.trustedRoots, cache: shared)
        let jws = try F.signer.sign(F.transaction(bundleId: bundle))
        _ = try await trusting.verifyTransaction(jws, for: SignedDataPolicy(bundleId: bundle))
        #expect(shared.count == 1)
        await #expect(throws: SignedDataRefusal.untrustedChain) {
            _ = try await other.verifyTransaction(jws, for: SignedDataPolicy(bundleId: bundle))
        }
        let both = SignedDataVerifier(
            roots: try TrustedRoots([F.otherChain.root, F.chain.root]), cache: shared)
        _ = try await both.verifyTransaction(jws, for: SignedDataPolicy(bundleId: bundle))
        #expect(shared.count == 2)
    }

    @Test("refused chains are not cached, and the cache keeps at most its capacity, the newest")
    func bounded() async throws {
        let bundle = "com.example.cache.bounded"
        let cache = VerifiedChainCache(capacity: 2)
        let verifier = SignedDataVerifier(roots: F.chain.trustedRoots, cache: cache)
        let policy = SignedDataPolicy(bundleId: bundle)
        await #expect(throws: SignedDataRefusal.untrustedChain) {
            _ = try await verifier.verifyTransaction(
                try StandInSigner(chain: F.otherChain).sign(F.transaction(bundleId: bundle)), for: policy)
        }
        #expect(cache.count == 0)
        for _ in 0..<3 {
            let leaf = StandInSigner(chain: try F.chain.issuingLeaf())
            _ = try await verifier.verifyTransaction(try leaf.sign(F.transaction(bundleId: bundle)), for: policy)
        }
        #expect(cache.count == 2)
        cache.removeAll()
        #expect(cache.count == 0)
    }

    @Test("many tasks verify through one cache at once")
    func concurrent() async throws {
        let bundle = "com.example.cache.concurrent"
        let verifier = SignedDataVerifier(roots: F.chain.trustedRoots, cache: VerifiedChainCache())
        let leaves = try (0..<4).map { _ in StandInSigner(chain: try F.chain.issuingLeaf()) }
        let signed = try (0..<200).map { index in
            try leaves[index % leaves.count].sign(F.transaction(bundleId: bundle))
        }
        let accepted = try await withThrowingTaskGroup(of: Bool.self) { group in
            for jws in signed {
                group.addTask {
                    try await verifier.verifyTransaction(jws, for: SignedDataPolicy(bundleId: bundle)).isChainVerified
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(accepted == signed.count)
        #expect(verifier.cache.count == leaves.count)
    }
}
