import AppStoreStandIn
import CatalogTestSupport
import Foundation
import PurchaseCore
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Purchases made on the test server as client apps make them: an app with a catalog and a client key, signed
/// transactions from the stand-in's signer (the server trusts its test chain), receipts queued for verification,
/// App Store notifications. The queue's later states (retrying, failed) are set in the database, as the worker
/// would leave them: these tests run no worker, so that nothing changes under the CLI's feet.
struct LivePurchases: Sendable {
    /// One chain for the test process: generating keys and certificates once is enough.
    static let chain: TestChain = {
        do { return try TestChain.generate() } catch { preconditionFailure("no test chain: \(error)") }
    }()
    static let signer = StandInSigner(chain: chain)

    let cli: AdminCLI
    let app: String
    /// The token of the app's client key.
    let client: String

    /// A new app with a consumable `coins` and a non-consumable `premium`, and a client key of it.
    static func make(_ cli: AdminCLI, _ name: String) async throws -> LivePurchases {
        let app = AdminCLI.uniqueApp(name)
        try await cli.succeed("apps", "create", app, "--name", name)
        try await cli.succeed("products", "create", "coins", "--app", app, "--type", "consumable", "--name", "Coins",
                              "--price", "0.99")
        try await cli.succeed("products", "create", "premium", "--app", app, "--type", "non-consumable",
                              "--name", "Premium", "--price", "4.99")
        let client = try await cli.succeed("keys", "create", "--role", "client", "--name", "client of \(app)", "--app", app,
                                           "--quiet").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        return LivePurchases(cli: cli, app: app, client: client)
    }

    /// A transaction of this app as the App Store signs one.
    func transaction(_ productID: String = "coins", type: AppStoreProductType = .consumable,
                     environment: AppStoreEnvironment = .sandbox, id: String = StandInIdentifiers.transactionId(),
                     original: String? = nil, purchased: Date = Date(), price: Int64? = 990) -> AppStoreTransaction {
        AppStoreTransaction.standIn(bundleId: app, productId: productID, type: type, environment: environment,
                                    transactionId: id, originalTransactionId: original, price: price,
                                    purchaseDate: AppStoreDate(purchased))
    }

    /// Submits a signed transaction for `account` as the app does; answers the submission's id.
    @discardableResult
    func buy(_ transaction: AppStoreTransaction, account: String) async throws -> String {
        let jws = try Self.signer.sign(transaction)
        let (status, body) = try await post("/v1/apps/\(app)/purchases", ["signedTransaction": jws, "accountToken": account])
        try #require(status == 200, "a signed transaction answered \(status): \(body)")
        return try #require(body["id"] as? String)
    }

    /// Queues an app receipt for `account` as the app does; answers the submission's id.
    func queueReceipt(account: String) async throws -> String {
        let receipt = Data((0..<48).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        let (status, body) = try await post("/v1/apps/\(app)/purchases", ["receipt": receipt, "accountToken": account])
        try #require(status == 202, "a receipt answered \(status): \(body)")
        return try #require(body["id"] as? String)
    }

    /// Posts an App Store Server Notification V2 about `transaction` (a refund, say).
    func notify(_ type: NotificationType, about transaction: AppStoreTransaction) async throws {
        let signed = try Self.signer.sign(try Self.signer.notification(type: type, about: transaction))
        let (status, body) = try await post("/v1/apps/\(app)/notifications/app-store", ["signedPayload": signed], key: nil)
        try #require(status == 200, "a notification answered \(status): \(body)")
    }

    /// Leaves a queued submission as the worker leaves one whose attempt did not decide: retrying, tried next in
    /// `next`.
    func markRetrying(_ id: String, next: Duration = .seconds(600), problem: String = "The App Store did not answer in time") async throws {
        try await TestDatabase.execute("""
            UPDATE purchase_submissions SET status = 'retrying', attempts = 1,
              next_attempt_at = now() + interval '\(next.components.seconds) seconds', problems = '["\(problem)"]'
            WHERE id = '\(id)'
            """, in: cli.server.database)
    }

    /// Leaves a queued submission as the worker leaves one undecided at the end of the retry period: failed.
    func markFailed(_ id: String) async throws {
        try await TestDatabase.execute("""
            UPDATE purchase_submissions SET status = 'failed', attempts = 5, next_attempt_at = NULL, finished_at = now(),
              problems = '["The App Store did not answer in time", "No decision within the retry period"]'
            WHERE id = '\(id)'
            """, in: cli.server.database)
    }

    /// The server the CLI talks to: the shared test server unless the CLI was pointed at another.
    private var serverURL: String { cli.environment["IAP_URL"] ?? cli.server.url }

    /// An account token (StoreKit 2's appAccountToken layout).
    static func account() -> String { UUID().uuidString.lowercased() }

    /// The answer's status and JSON object for a POST of `json` with `key` (the client key unless told).
    private func post(_ path: String, _ json: [String: String], key: String?? = .none) async throws -> (Int, [String: Any]) {
        var request = URLRequest(url: try #require(URL(string: serverURL + path)))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if let token = key ?? client { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        request.httpBody = try JSONSerialization.data(withJSONObject: json)
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        return (status, (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:])
    }

    /// The body the API answers for a GET of `path` with `key` (the CLI's unless told), to compare with what
    /// `--json` printed.
    func directBody(_ path: String, key: String? = nil) async throws -> String {
        var request = URLRequest(url: try #require(URL(string: serverURL + path)))
        request.setValue("Bearer \(key ?? cli.environment["IAP_KEY"] ?? cli.server.adminKey)", forHTTPHeaderField: "Authorization")
        let (data, _) = try await URLSession.shared.data(for: request)
        return String(decoding: data, as: UTF8.self)
    }
}
