import AppStoreStandIn
import Crypto
import Foundation
import PurchaseCore

/// The chain, signer and payloads the signed-data tests share. One chain for the whole run: generating keys
/// and certificates is the slow part, and nothing changes a chain.
enum SignedDataFixtures {
    static let chain: TestChain = try! TestChain.generate()
    static let signer = StandInSigner(chain: chain)
    /// Another chain with the same names and other keys: what a forger would make.
    static let otherChain: TestChain = try! TestChain.generate()

    /// A verifier that trusts `chain`'s root only, with a cache of its own.
    static func verifier(maximumLength: Int = SignedDataVerifier.defaultMaximumLength) -> SignedDataVerifier {
        SignedDataVerifier(roots: chain.trustedRoots, cache: VerifiedChainCache(), maximumLength: maximumLength)
    }

    /// 2026-11-25 12:00 UTC, inside the test chain's validity (2020 to 2040).
    static let now = AppStoreDate(millisecondsSince1970: 1_795_608_000_000)

    static func date(year: Int, month: Int = 6, day: Int = 1) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.date(from: DateComponents(year: year, month: month, day: day))!
    }

    /// A consumable bought in `environment` for `bundleId`, signed at `signedDate`.
    static func transaction(
        bundleId: String,
        environment: AppStoreEnvironment = .sandbox,
        type: AppStoreProductType = .consumable,
        signedDate: AppStoreDate = now
    ) -> AppStoreTransaction {
        .standIn(
            bundleId: bundleId, productId: "\(bundleId).coins100", type: type, environment: environment,
            appAccountToken: UUID(uuidString: "6f6d2c1e-1f0b-4c55-9d59-6b656e636801"), price: 990, currency: "USD",
            purchaseDate: AppStoreDate(millisecondsSince1970: now.millisecondsSince1970 - 60_000),
            signedDate: signedDate)
    }

    /// The JWS's three parts.
    static func parts(_ jws: String) -> [String] {
        jws.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    /// A JWS with `header` (JSON) and `payload` (JSON), and `signature` as given.
    static func compact(header: String, payload: Data, signature: Data) -> String {
        "\(Base64URL.encode(Array(header.utf8))).\(Base64URL.encode(payload)).\(Base64URL.encode(signature))"
    }

    /// The JSON of an `x5c` array of `certificates`.
    static func x5cJSON(_ certificates: [String]) -> String {
        "[" + certificates.map { "\"\($0)\"" }.joined(separator: ",") + "]"
    }

    static func json(_ value: some Encodable) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return try! encoder.encode(value)
    }
}
