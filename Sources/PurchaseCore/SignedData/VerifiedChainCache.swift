import Crypto
import Foundation
import Synchronization

/// Chains that `SignedDataVerifier` has verified, so that data signed with a known leaf costs one signature
/// check instead of parsing three certificates and checking two more signatures and the policy.
///
/// An entry is keyed by the exact text of `x5c[0]` and `x5c[1]` and by the identity of the trusted roots, so
/// it is never used for other certificates or another set of roots. It keeps the chain's validity window
/// (the latest start and earliest end of its three certificates), so every payload's `signedDate` is still
/// checked; a `signedDate` outside the window goes through full verification again, so the cache never changes
/// an outcome, it only saves work. Only chains that verified are kept: a forged chain cannot push out a real
/// one. The cache holds at most `capacity` chains (Apple signs with a handful of leaves at a time) and forgets
/// the oldest first; it is safe to share between tasks and threads.
public final class VerifiedChainCache: Sendable {
    /// The most chains it holds.
    public let capacity: Int
    private let state: Mutex<State>

    /// An empty cache for at most `capacity` chains (at least one).
    public init(capacity: Int = 64) {
        self.capacity = max(capacity, 1)
        self.state = Mutex(State())
    }

    /// How many chains it holds now.
    public var count: Int { state.withLock { $0.entries.count } }

    /// Forgets every chain (for example when the trusted roots are reloaded).
    public func removeAll() {
        state.withLock { $0 = State() }
    }

    func chain(for key: Key) -> VerifiedChain? {
        state.withLock { $0.entries[key] }
    }

    func insert(_ chain: VerifiedChain, for key: Key) {
        state.withLock { state in
            if state.entries.updateValue(chain, forKey: key) == nil {
                state.order.append(key)
                if state.order.count > capacity {
                    state.entries[state.order.removeFirst()] = nil
                }
            }
        }
    }

    private struct State {
        var entries: [Key: VerifiedChain] = [:]
        /// Keys, oldest first.
        var order: [Key] = []
    }

    /// The exact leaf and intermediate text and the roots' identity. The hash is computed once, outside the
    /// lock, so that a lookup holds the lock for a comparison of the texts only.
    struct Key: Hashable, Sendable {
        let leaf: String
        let intermediate: String
        let roots: [UInt8]
        private let hash: Int

        init(leaf: String, intermediate: String, roots: [UInt8]) {
            self.leaf = leaf
            self.intermediate = intermediate
            self.roots = roots
            var hasher = Hasher()
            hasher.combine(leaf)
            hasher.combine(intermediate)
            hasher.combine(roots)
            self.hash = hasher.finalize()
        }

        static func == (lhs: Key, rhs: Key) -> Bool {
            lhs.hash == rhs.hash && lhs.roots == rhs.roots && lhs.leaf == rhs.leaf
                && lhs.intermediate == rhs.intermediate
        }

        func hash(into hasher: inout Hasher) { hasher.combine(hash) }
    }
}

/// A leaf and intermediate that chain to a trusted root under Apple's policy, with what a payload needs.
///
/// Sendable although swift-crypto 3 does not mark `P256.Signing.PublicKey` so: the key is never changed after
/// it is made, and checking a signature only reads it (BoringSSL's `ECDSA_do_verify` takes a const key).
struct VerifiedChain: @unchecked Sendable {
    /// The leaf's key, which must have signed the payload.
    let leafKey: P256.Signing.PublicKey
    /// The latest `notValidBefore` of the chain's certificates.
    let validFrom: Date
    /// The earliest `notValidAfter` of the chain's certificates.
    let validUntil: Date

    /// Whether every certificate of the chain was valid at `date`.
    func isValid(at date: Date) -> Bool { validFrom <= date && date <= validUntil }
}
