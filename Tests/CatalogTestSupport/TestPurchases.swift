import CatalogCore
import CatalogStore
import Foundation
import PostgresNIO
import PurchaseCore

/// Purchases set up and watched directly in a test database: an app with a client key, receipts queued as intake
/// queues them, and the submissions read until the queue has decided them.
public enum TestPurchases {
    /// An app account's token (StoreKit 2's appAccountToken layout).
    public static let account = "3f2504e0-4f89-11d3-9a0c-0305e82c3301"

    /// A new app `bundleID` with a consumable `coins` on its catalog, and a client key of it: its id and token.
    public static func app(_ bundleID: String, in url: DatabaseURL) async throws -> (keyID: UUID, token: String) {
        try await TestDatabase.withDatabase(url) { database in
            let actor = Actor(keyID: nil, name: "tests", role: .admin)
            let app = App(bundleID: bundleID, name: "App \(bundleID)")
            try await database.apps.create(app, event: HistoryRecord(kind: .appCreated, bundleID: bundleID, actor: actor))
            let fields = ProductEdit(
                referenceName: "Coins", price: Price(currency: "USD", amount: "0.99"),
                localizations: [Localization(locale: "en-US", displayName: "Coins", description: "A pile of coins")])
            let product = try Product.create(NewProduct(productID: "coins", type: .consumable, fields: fields), in: app,
                                             at: Date())
            try await database.products.create(product, event: HistoryRecord(
                kind: .created, bundleID: bundleID, productID: product.productID, productVersion: product.version,
                toState: product.state, actor: actor, changes: product.creationChanges))
            let token = KeyToken.generate()
            let key = APIKey(id: UUID(), name: "client of \(bundleID)", role: .client, apps: [bundleID],
                             createdAt: Date(), expiresAt: nil, revokedAt: nil)
            try await database.keys.create(key, token: token, event: HistoryRecord(
                kind: .keyCreated, bundleID: nil, actor: actor))
            return (key.id, token.text)
        }
    }

    /// Sets the app's shared secret as the store settings keep it.
    public static func setSharedSecret(_ secret: String, of bundleID: String, in url: DatabaseURL) async throws {
        try await TestDatabase.execute("""
            INSERT INTO store_settings (app, shared_secret) VALUES ('\(bundleID)', '\(secret)')
            ON CONFLICT (app) DO UPDATE SET shared_secret = excluded.shared_secret, version = store_settings.version + 1
            """, in: url)
    }

    /// Queues each receipt as intake does (for `account`), answering their submissions' ids in order.
    public static func queue(_ receipts: [String], of bundleID: String, key: UUID, account: String = account,
                             in url: DatabaseURL) async throws -> [UUID] {
        try await TestDatabase.withDatabase(url) { database in
            var ids: [UUID] = []
            for receipt in receipts {
                let intake = try await database.submissions.queueReceipt(.init(
                    bundleID: bundleID, keyID: key, accountToken: account, receipt: receipt))
                ids.append(intake.submission.id)
            }
            return ids
        }
    }

    /// The submissions `ids` of the app once every one is decided (verified, invalid or failed), read every 100 ms;
    /// throws when `timeout` passes first, naming those still pending.
    public static func decided(_ ids: [UUID], of bundleID: String, in url: DatabaseURL,
                               timeout: Duration = .seconds(60)) async throws -> [UUID: PurchaseSubmission] {
        let deadline = ContinuousClock.now + timeout
        return try await TestDatabase.withDatabase(url) { database in
            while true {
                var found: [UUID: PurchaseSubmission] = [:]
                for id in ids {
                    if let submission = try await database.submissions.find(bundleID, id: id) { found[id] = submission }
                }
                let pending = ids.filter { found[$0]?.status.isFinal != true }
                if pending.isEmpty { return found }
                guard ContinuousClock.now < deadline else {
                    let states = pending.map { "\($0): \(found[$0].map { "\($0.status) \($0.problems)" } ?? "missing")" }
                    throw TestSetupError("""
                        \(pending.count) of \(ids.count) submissions still undecided after \(timeout): \
                        \(states.prefix(5).joined(separator: "; "))
                        """)
                }
                try await Task.sleep(for: .milliseconds(100))
            }
        }
    }

    /// The integer a single-value query answers, in `url`'s database as its superuser.
    public static func count(_ sql: String, in url: DatabaseURL) async throws -> Int {
        try await TestDatabase.withClient(url, maximumConnections: 1) { client in
            let rows = try await client.query(PostgresQuery(unsafeSQL: sql), logger: TestDatabase.logger).collect()
            return try rows.first?.decode(Int.self) ?? -1
        }
    }
}
