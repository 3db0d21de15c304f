import AppStoreStandIn
import CatalogAPI
import CatalogCore
import CatalogServer
import CatalogStore
import CatalogTestSupport
import Foundation
import HTTPTypes
import HummingbirdTesting
import PurchaseCore
import Testing

/// What the purchase tests share: the stand-in's test chain (trusted by the server under test instead of
/// Apple's root), a signer, an app with its catalog products, keys of each role and a client key of the app.
struct PurchaseWorld: Sendable {
    /// One chain for the test process: generating keys and certificates once is enough.
    static let chain: TestChain = {
        do { return try TestChain.generate() } catch { preconditionFailure("no test chain: \(error)") }
    }()
    static let signer = StandInSigner(chain: chain)
    static var roots: TrustedRoots { chain.trustedRoots }

    let app: String
    let keys: APIFixture.Keys
    let client: String

    /// An app of its own with a consumable `coins`, a non-consumable `premium` and a subscription `monthly`.
    static func make(_ api: API, fixture: APIFixture, app: String) async throws -> PurchaseWorld {
        let keys = try await fixture.keys()
        try await api.createApp(app, key: keys.admin)
        try await api.createProduct(app, "coins", type: .consumable, key: keys.admin)
        try await api.createProduct(app, "premium", type: .nonConsumable, key: keys.admin)
        let client = try await fixture.key(.client, apps: [app])
        return PurchaseWorld(app: app, keys: keys, client: client)
    }

    /// A transaction of this app as the App Store signs one.
    func transaction(_ productID: String = "coins", type: AppStoreProductType = .consumable,
                     environment: AppStoreEnvironment = .sandbox, id: String = StandInIdentifiers.transactionId(),
                     original: String? = nil, account: UUID? = nil, purchased: Date = Date(),
                     expires: Date? = nil) -> AppStoreTransaction {
        AppStoreTransaction.standIn(bundleId: app, productId: productID, type: type, environment: environment,
                                    transactionId: id, originalTransactionId: original, appAccountToken: account,
                                    purchaseDate: AppStoreDate(purchased), expiresDate: expires.map(AppStoreDate.init))
    }

    func signed(_ transaction: AppStoreTransaction) throws -> String { try Self.signer.sign(transaction) }

    /// `POST …/purchases` with a signed transaction, as the client key.
    func submit(_ api: API, _ jws: String, account: String? = nil, key: String? = nil) async throws -> TestResponse {
        var body: [String: any Sendable] = ["signedTransaction": jws]
        if let account { body["accountToken"] = account }
        return try await api.send(.post, "/v1/apps/\(app)/purchases", key: key ?? client, json: body)
    }

    func receipt(_ api: API, _ receipt: String, account: String? = nil, key: String? = nil) async throws -> TestResponse {
        var body: [String: any Sendable] = ["receipt": receipt]
        if let account { body["accountToken"] = account }
        return try await api.send(.post, "/v1/apps/\(app)/purchases", key: key ?? client, json: body)
    }

    /// The app's ledger, every page, as an auditor reads it.
    func ledger(_ api: API, query: String = "") async throws -> [Components.Schemas.LedgerTransaction] {
        try expect(try await api.send(.get, "/v1/apps/\(app)/transactions?limit=200\(query)", key: keys.auditor), .ok,
                   as: Components.Schemas.LedgerTransactionPage.self).items
    }

    static func account() -> String { UUID().uuidString.lowercased() }
}

extension APIFixture {
    /// The application trusting the stand-in's test chain, with the per-account limit out of the way and room
    /// for a thousand requests waiting for the database (each reads its key there when the application runs
    /// without its key-change listener, as under the router tests).
    func purchases<Result: Sendable>(_ body: @Sendable (API) async throws -> Result) async throws -> Result {
        var limits = TestArguments(databaseURL: url, migrationDatabaseURL: nil).limits
        limits.burstPerAccount = 100_000
        limits.submissionsPerSecondPerAccount = 100_000
        limits.databaseQueue = 2_000
        return try await run(limits: limits, roots: PurchaseWorld.roots, body)
    }
}
