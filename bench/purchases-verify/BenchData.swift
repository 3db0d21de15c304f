import AppStoreStandIn
import ArgumentParser
import Foundation
import PurchaseCore

/// Signed transactions and the roots and policy to verify them with.
struct BenchData {
    let roots: TrustedRoots
    let policy: SignedDataPolicy
    let transactions: [String]
    let source: String

    /// The first `count` transactions of `options.data`, or `count` fresh ones from a new stand-in chain.
    static func load(_ options: DataOptions, count: Int) throws -> BenchData {
        guard let environment = AppStoreEnvironment(rawValue: options.environment) else {
            throw ValidationError("--environment must be Production or Sandbox, not \(options.environment)")
        }
        let policy = SignedDataPolicy(bundleId: options.bundle, environments: [environment])
        if let data = options.data {
            let folder = URL(fileURLWithPath: data)
            let root = try Data(contentsOf: folder.appendingPathComponent("chain/root.pem"))
            let lines = try String(contentsOf: folder.appendingPathComponent("transactions.jws"), encoding: .utf8)
                .split(separator: "\n").prefix(count).map(String.init)
            return BenchData(
                roots: try TrustedRoots(pemOrDER: [Array(root)]), policy: policy, transactions: lines,
                source: "\(data)/transactions.jws (\(lines.count) lines)")
        }
        let chain = try TestChain.generate()
        let signer = StandInSigner(chain: chain)
        let types: [AppStoreProductType] = [.consumable, .nonConsumable, .autoRenewableSubscription, .nonRenewingSubscription]
        let transactions = try (0..<count).map { index in
            try signer.sign(
                AppStoreTransaction.standIn(
                    bundleId: options.bundle, productId: "\(options.bundle).product\(index % 6)",
                    type: types[index % types.count], environment: environment,
                    transactionId: String(2_000_000_000_000_000 + index), appAccountToken: UUID(),
                    price: 990 + Int64(index % 40) * 1000))
        }
        return BenchData(
            roots: chain.trustedRoots, policy: policy, transactions: transactions,
            source: "\(count) transactions signed by a new stand-in chain")
    }
}
