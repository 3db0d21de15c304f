import AppStoreStandIn
import CatalogAPI
import CatalogCore
import CatalogStore
import CatalogTestSupport
import Crypto
import Foundation
import HTTPTypes
import HummingbirdTesting
import PostgresNIO
import PurchaseCore
import Testing

/// Accounts over HTTP on real PostgreSQL (DESIGN.md "Accounts"): tokens from the account, what one account owns
/// after purchases, renewals and refunds replayed with the stand-in's signer, and the signals; each test with its
/// own app.
@Suite("Accounts API")
struct AccountAPITests {
    static let suite = "accounts_api"

    static func tokens(_ api: API, _ app: String, _ account: String, key: String) async throws
        -> Components.Schemas.AccountTokens
    {
        try expect(try await api.send(.post, "/v1/apps/\(app)/account-tokens", key: key, json: ["account": account]),
                   .ok, as: Components.Schemas.AccountTokens.self)
    }

    static func account(_ api: API, _ app: String, _ token: String, key: String) async throws -> Components.Schemas.Account {
        try expect(try await api.send(.get, "/v1/apps/\(app)/accounts/\(token)", key: key), .ok,
                   as: Components.Schemas.Account.self)
    }

    static func signals(_ api: API, _ app: String, _ query: String = "", key: String) async throws
        -> [Components.Schemas.Signal]
    {
        try expect(try await api.send(.get, "/v1/apps/\(app)/signals?limit=200\(query)", key: key), .ok,
                   as: Components.Schemas.SignalPage.self).items
    }

    static func notify(_ api: API, _ app: String, _ type: NotificationType, _ transaction: AppStoreTransaction)
        async throws
    {
        let notification = try PurchaseWorld.signer.notification(type: type, about: transaction)
        _ = try expect(try await api.send(.post, "/v1/apps/\(app)/notifications/app-store",
                                          json: ["signedPayload": try PurchaseWorld.signer.sign(notification)]),
                       .ok, as: Components.Schemas.AppStoreNotificationReceipt.self)
    }

    /// The app's secret as the owner reads it, for an independent computation of the tokens.
    static func secret(_ app: String, in url: DatabaseURL) async throws -> [UInt8] {
        try await TestDatabase.withClient(url) { client in
            var bytes: [UInt8] = []
            for try await data in try await client.query("SELECT secret FROM account_token_secrets WHERE app = \(app)")
                .decode(Data.self) { bytes = Array(data) }
            return bytes
        }
    }

    @Test("tokens: HMAC-SHA-256 under the app's secret in the seed's layout and as a UUID; same account, same tokens; another app, others")
    func tokens() async throws {
        let fixture = try await APIFixture.forSuite(Self.suite)
        let app = "com.accounts.tokens"
        let (first, elsewhere) = try await fixture.purchases { api in
            let world = try await PurchaseWorld.make(api, fixture: fixture, app: app)
            try await api.createApp("com.accounts.tokens.other", key: world.keys.admin)
            let byAdmin = try await Self.tokens(api, app, "user-42", key: world.keys.admin)
            let byDeveloper = try await Self.tokens(api, app, "user-42", key: world.keys.developer)
            #expect(byAdmin.applicationUsername == byDeveloper.applicationUsername
                && byAdmin.appAccountToken == byDeveloper.appAccountToken)
            let elsewhere = try await Self.tokens(api, "com.accounts.tokens.other", "user-42", key: world.keys.admin)
            #expect(elsewhere.applicationUsername != byAdmin.applicationUsername)
            #expect(try await Self.tokens(api, app, "user-43", key: world.keys.admin).appAccountToken != byAdmin.appAccountToken)
            return (byAdmin, elsewhere)
        }
        // Computed here from the secret the database holds: HMAC-SHA-256, hex in groups of 8 joined by dashes; the
        // UUID is the first 16 bytes with the version and variant bits set.
        let digest = Array(HMAC<SHA256>.authenticationCode(for: Data("user-42".utf8),
                                                           using: SymmetricKey(data: try await Self.secret(app, in: fixture.url))))
        let hex = digest.map { String(format: "%02x", $0) }.joined()
        let groups = stride(from: 0, to: 64, by: 8).map { hex.dropFirst($0).prefix(8) }
        #expect(first.applicationUsername == groups.joined(separator: "-"))
        var bytes = Array(digest.prefix(16))
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        let uuidHex = bytes.map { String(format: "%02x", $0) }.joined()
        let uuid = [uuidHex.prefix(8), uuidHex.dropFirst(8).prefix(4), uuidHex.dropFirst(12).prefix(4),
                    uuidHex.dropFirst(16).prefix(4), uuidHex.dropFirst(20)].joined(separator: "-")
        #expect(first.appAccountToken == uuid)
        // A second application on the same database (a restart): the same tokens.
        let again = try await fixture.purchases { api in
            try await Self.tokens(api, app, "user-42", key: try await fixture.key(.developer))
        }
        #expect(again.applicationUsername == first.applicationUsername && again.appAccountToken == first.appAccountToken)
        #expect(elsewhere.appAccountToken != first.appAccountToken)
    }

    @Test("the account appears in no answer, log line (trace), table or idempotency record; refusals name the rule")
    func accountNeverKept() async throws {
        LogCapture.install()
        let fixture = try await APIFixture.forSuite(Self.suite)
        let app = "com.accounts.secret"
        let account = "alice.\(UUID().uuidString)@example.com"
        var answers: [String] = []
        try await fixture.purchases { api in
            let world = try await PurchaseWorld.make(api, fixture: fixture, app: app)
            _ = world
        }
        let keys = try await fixture.keys()
        answers += try await fixture.run(logLevel: .trace, roots: PurchaseWorld.roots) { api in
            var answers: [String] = []
            let path = "/v1/apps/\(app)/account-tokens"
            let made = try await api.send(.post, path, key: keys.developer, json: ["account": account],
                                          headers: [HTTPField.Name("Idempotency-Key")!: "tokens-1"])
            answers.append(String(buffer: made.body))
            let tokens = try expect(made, .ok, as: Components.Schemas.AccountTokens.self)
            let repeated = try await api.send(.post, path, key: keys.developer, json: ["account": account],
                                              headers: [HTTPField.Name("Idempotency-Key")!: "tokens-1"])
            #expect(try expect(repeated, .ok, as: Components.Schemas.AccountTokens.self).appAccountToken
                == tokens.appAccountToken)
            answers.append(String(buffer: repeated.body))
            // Refused: too long, empty, another field, not JSON; none quotes the account.
            let long = String(repeating: account, count: 20)
            for body in [#"{"account":"\#(long)"}"#, #"{"account":""}"#, #"{"account":"\#(account)","name":"\#(account)"}"#,
                         #"{"account":"\#(account)""#, #"{"account":["\#(account)"]}"#] {
                let refused = try await api.send(.post, path, key: keys.developer, body: body)
                #expect((400..<500).contains(refused.status.code), "\(refused.status)")
                answers.append(String(buffer: refused.body))
            }
            let tooLong = try problem(try await api.send(.post, path, key: keys.developer, json: ["account": long]),
                                      .unprocessableContent, "validation-failed")
            #expect(tooLong.errors?.map(\.field) == ["account"] && tooLong.errors?.map(\.rule) == ["maxLength"])
            // Read back through everything an admin may read: nothing names it.
            for read in ["/v1/apps/\(app)/accounts/\(tokens.appAccountToken)", "/v1/apps/\(app)/signals",
                         "/v1/history?app=\(app)", "/v1/apps/\(app)/transactions"] {
                answers.append(String(buffer: try await api.send(.get, read, key: keys.admin).body))
            }
            return answers
        }
        let logged = LogCapture.text
        #expect(logged.contains("account-tokens"), "the capture saw the requests")
        for text in answers + [logged] {
            #expect(!text.contains(account) && !text.contains(String(account.prefix(12))))
        }
        // Every table, every row, as text (bytea as hex): neither the account nor its UTF-8 in hex.
        let hex = Data(account.utf8).map { String(format: "%02x", $0) }.joined()
        let found = try await TestDatabase.withClient(fixture.url) { client in
            var tables: [String] = []
            for try await name in try await client.query("""
                SELECT c.relname::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')
                """).decode(String.self) { tables.append(name) }
            var found: [String] = []
            for table in tables {
                let sql = "SELECT count(*)::int FROM public.\"\(table)\" AS x WHERE strpos(x::text, $1) > 0 OR strpos(x::text, $2) > 0"
                var bindings = PostgresBindings()
                bindings.append(account)
                bindings.append(hex)
                for try await count in try await client.query(PostgresQuery(unsafeSQL: sql, binds: bindings)).decode(Int.self)
                where count > 0 { found.append(table) }
            }
            // Not even a plain hash of the request: Idempotency-Key is not kept for it.
            var kept = 0
            for try await count in try await client.query(
                "SELECT count(*)::int FROM idempotency_keys WHERE idempotency_key = 'tokens-1'").decode(Int.self) {
                kept = count
            }
            if kept > 0 { found.append("idempotency_keys (a request hash)") }
            return (tables, found)
        }
        #expect(found.0.contains("idempotency_keys") && found.0.contains("ledger_transactions"), "the tables: \(found.0)")
        #expect(found.1.isEmpty, "the account is in \(found.1)")
    }

    @Test("what an account owns: by catalog type, both token forms one account, Apple's token tied via notification, refunds and expiry followed")
    func entitlements() async throws {
        let fixture = try await APIFixture.forSuite(Self.suite)
        try await fixture.purchases { api in
            let world = try await PurchaseWorld.make(api, fixture: fixture, app: "com.accounts.owns")
            let app = world.app
            try await api.createProduct(app, "monthly", type: .autoRenewableSubscription, key: world.keys.admin)
            try await api.createProduct(app, "season", type: .nonRenewingSubscription, key: world.keys.admin)
            let tokens = try await Self.tokens(api, app, "user-owns", key: world.keys.developer)
            let uuid = try #require(UUID(uuidString: tokens.appAccountToken))
            let now = Date()
            // The seed's form on purchases without Apple's token; StoreKit 2's from Apple.
            var coins = world.transaction("coins", id: "4000000000000001", purchased: now.addingTimeInterval(-3_600))
            coins.quantity = 5
            _ = try expect(try await world.submit(api, try world.signed(coins), account: tokens.applicationUsername),
                           .ok, as: Components.Schemas.PurchaseSubmission.self)
            _ = try expect(try await world.submit(api, try world.signed(world.transaction("coins", id: "4000000000000002")),
                                                  account: tokens.applicationUsername.uppercased()),
                           .ok, as: Components.Schemas.PurchaseSubmission.self)
            let premium = world.transaction("premium", type: .nonConsumable, id: "4000000000000003", account: uuid)
            _ = try expect(try await world.submit(api, try world.signed(premium)), .ok,
                           as: Components.Schemas.PurchaseSubmission.self)
            let season = world.transaction("season", type: .nonRenewingSubscription, id: "4000000000000004",
                                           account: uuid, purchased: now.addingTimeInterval(-86_400))
            _ = try expect(try await world.submit(api, try world.signed(season)), .ok,
                           as: Components.Schemas.PurchaseSubmission.self)
            // A subscription no submission brought: its notification carries Apple's appAccountToken.
            let start = now.addingTimeInterval(-40 * 86_400)
            let monthly = world.transaction("monthly", type: .autoRenewableSubscription, id: "4000000000000005",
                                            account: uuid, purchased: start, expires: start.addingTimeInterval(30 * 86_400))
            try await Self.notify(api, app, .subscribed, monthly)
            // Someone else's purchase stays out.
            let other = try await Self.tokens(api, app, "user-other", key: world.keys.developer)
            _ = try expect(try await world.submit(api, try world.signed(world.transaction("premium", type: .nonConsumable,
                                                                                          id: "4000000000000006")),
                                                  account: other.appAccountToken), .ok,
                           as: Components.Schemas.PurchaseSubmission.self)

            var owned = try await Self.account(api, app, tokens.applicationUsername, key: world.keys.developer)
            #expect(owned.accountKey == tokens.appAccountToken && owned.accountToken == tokens.applicationUsername)
            #expect(owned.transactions.count == 5)
            #expect(owned.entitlements.consumables.map { [$0.productId, "\($0.units)", "\($0.transactions)"] } == [["coins", "6", "2"]])
            #expect(owned.entitlements.nonConsumables.map(\.transactionId) == ["4000000000000003"])
            #expect(owned.entitlements.nonRenewing.map(\.transactionId) == ["4000000000000004"])
            #expect(owned.entitlements.subscriptions.map(\.latestTransactionId) == ["4000000000000005"])
            #expect(owned.entitlements.subscriptions.first?.active == false, "expired ten days ago")
            #expect(owned.revoked.isEmpty && owned.unclassified.isEmpty)
            let byUUID = try await Self.account(api, app, tokens.appAccountToken.uppercased(), key: world.keys.admin)
            #expect(byUUID.transactions.map(\.transactionId) == owned.transactions.map(\.transactionId))
            // The ledger's filter by account finds them by either form too.
            #expect(Set(try await world.ledger(api, query: "&accountToken=\(tokens.applicationUsername)").map(\.transactionId))
                == Set(owned.transactions.map(\.transactionId)))

            // A renewal (notification) makes the subscription active again; refunds take away what they refund.
            let renewal = world.transaction("monthly", type: .autoRenewableSubscription, id: "4000000000000007",
                                            original: "4000000000000005", account: uuid,
                                            purchased: now.addingTimeInterval(-86_400),
                                            expires: now.addingTimeInterval(29 * 86_400))
            try await Self.notify(api, app, .didRenew, renewal)
            owned = try await Self.account(api, app, tokens.appAccountToken, key: world.keys.developer)
            #expect(owned.entitlements.subscriptions.map(\.latestTransactionId) == ["4000000000000007"])
            #expect(owned.entitlements.subscriptions.first?.active == true)
            var refunded = premium
            refunded.revocationDate = AppStoreDate(now)
            refunded.revocationReason = .appIssue
            try await Self.notify(api, app, .refund, refunded)
            var refundedCoins = coins
            refundedCoins.revocationDate = AppStoreDate(now)
            refundedCoins.revocationReason = .other
            try await Self.notify(api, app, .refund, refundedCoins)
            var revokedRenewal = renewal
            revokedRenewal.revocationDate = AppStoreDate(now)
            revokedRenewal.revocationReason = .other
            try await Self.notify(api, app, .refund, revokedRenewal)
            owned = try await Self.account(api, app, tokens.appAccountToken, key: world.keys.developer)
            #expect(owned.entitlements.nonConsumables.isEmpty)
            #expect(owned.entitlements.consumables.map { [$0.productId, "\($0.units)"] } == [["coins", "1"]])
            #expect(owned.entitlements.subscriptions.map(\.latestTransactionId) == ["4000000000000005"])
            #expect(owned.entitlements.subscriptions.first?.active == false)
            #expect(Set(owned.revoked.map(\.transactionId)) == ["4000000000000001", "4000000000000003", "4000000000000007"])
            #expect(owned.revoked.first { $0.transactionId == "4000000000000003" }?.revocationReason == 1)
            // A refund reversed gives it back.
            var reversed = premium
            reversed.revocationDate = nil
            try await Self.notify(api, app, .refundReversed, reversed)
            owned = try await Self.account(api, app, tokens.appAccountToken, key: world.keys.developer)
            #expect(owned.entitlements.nonConsumables.map(\.transactionId) == ["4000000000000003"])
            // An account nothing was credited to: empty, not 404.
            let nobody = try await Self.account(api, app, PurchaseWorld.account(), key: world.keys.developer)
            #expect(nobody.transactions.isEmpty && nobody.entitlements.nonConsumables.isEmpty)
            _ = try problem(try await api.send(.get, "/v1/apps/\(app)/accounts/not-a-token", key: world.keys.admin),
                            .unprocessableContent, "validation-failed")
        }
    }

    @Test("sharedTransaction: a signed transaction and a receipt credited to the first account, not the second; both named; once; in history")
    func shared() async throws {
        let fixture = try await APIFixture.forSuite(Self.suite)
        try await fixture.purchases { api in
            let world = try await PurchaseWorld.make(api, fixture: fixture, app: "com.accounts.shared")
            let app = world.app
            let alice = try await Self.tokens(api, app, "alice", key: world.keys.developer)
            let bob = try await Self.tokens(api, app, "bob", key: world.keys.developer)
            let jws = try world.signed(world.transaction("premium", type: .nonConsumable, id: "5000000000000001"))
            let first = try expect(try await world.submit(api, jws, account: alice.appAccountToken), .ok,
                                   as: Components.Schemas.PurchaseSubmission.self)
            #expect(first.transactions.first?.credited == true)
            let second = try expect(try await world.submit(api, jws, account: bob.applicationUsername), .ok,
                                    as: Components.Schemas.PurchaseSubmission.self)
            #expect(second.transactions.first?.credited == false && second.transactions.first?.alreadyRecorded == true)
            // Alice's other form brings it again: the same account, no signal.
            _ = try await world.submit(api, jws, account: alice.applicationUsername)
            _ = try await world.submit(api, jws, account: bob.appAccountToken)

            // A receipt shared by both: queued twice, verified twice (as the worker records it), credited once.
            var ids: [UUID] = []
            for account in [alice.appAccountToken, bob.appAccountToken] {
                let queued = try expect(try await world.receipt(api, "U0hBUkVELVJFQ0VJUFQ=", account: account), .accepted,
                                        as: Components.Schemas.PurchaseSubmission.self)
                ids.append(try #require(UUID(uuidString: queued.id)))
            }
            try await TestDatabase.withDatabase(fixture.url) { [ids] database in
                for id in ids {
                    try await TestDatabase.execute("""
                        UPDATE purchase_submissions SET status = 'verifying', attempts = 1,
                            lease_expires_at = now() + interval '1 minute' WHERE id = '\(id)'
                        """, in: fixture.url)
                    let outcome = SubmissionQueue.Outcome(
                        submissionID: id, attempts: 1, status: .verified, environment: .sandbox, appleStatus: 0,
                        transactions: [TransactionFacts(environment: .sandbox, transactionId: "5000000000000002",
                                                        productId: "coins", purchaseDate: Date())])
                    #expect(try await database.queue.record(outcome))
                }
            }
            let bobsReceipt = try expect(try await api.send(.get, "/v1/apps/\(app)/purchases/submissions/\(ids[1])",
                                                            key: world.keys.admin), .ok,
                                         as: Components.Schemas.PurchaseSubmission.self)
            #expect(bobsReceipt.transactions.map(\.credited) == [false])

            let shared = try await Self.signals(api, app, "&kind=sharedTransaction", key: world.keys.auditor)
            #expect(shared.map(\.transactionId) == ["5000000000000002", "5000000000000001"])
            #expect(shared.allSatisfy { $0.accountToken == alice.appAccountToken })
            #expect(shared.map(\.otherAccountToken) == [bob.appAccountToken, bob.applicationUsername])
            #expect(shared.allSatisfy { $0.source.kind == .submission })
            let bobs = try await Self.account(api, app, bob.appAccountToken, key: world.keys.developer)
            #expect(bobs.transactions.isEmpty)
            // Bob is named in either form, and by either form of the filter.
            #expect(try await Self.signals(api, app, "&accountToken=\(bob.applicationUsername)", key: world.keys.auditor).count == 2)
            let events = try expect(try await api.send(.get, "/v1/history?app=\(app)&kind=signal_raised", key: world.keys.auditor),
                                    .ok, as: Components.Schemas.HistoryPage.self).items
            #expect(events.count == 2)
            #expect(events.allSatisfy { $0.changes.contains { $0.field == "signal" } })
            let verification = try expect(try await api.send(.get, "/v1/history/verify?app=\(app)", key: world.keys.auditor),
                                          .ok, as: Components.Schemas.HistoryVerification.self)
            #expect(verification.verified)
        }
    }

    @Test("manyStoreAccounts fires at N + 1 App Store accounts within the app's window, not at N; paged by cursor")
    func manyStoreAccounts() async throws {
        let fixture = try await APIFixture.forSuite(Self.suite)
        try await fixture.purchases { api in
            let world = try await PurchaseWorld.make(api, fixture: fixture, app: "com.accounts.many")
            let app = world.app
            let settings = try expect(try await api.send(.put, "/v1/apps/\(app)/store-settings", key: world.keys.admin,
                                                         json: ["manyStoreAccountsLimit": 2, "manyStoreAccountsWindowHours": 24]),
                                      .ok, as: Components.Schemas.StoreSettings.self)
            #expect(settings.manyStoreAccountsLimit == 2 && settings.manyStoreAccountsWindowHours == 24)
            _ = try problem(try await api.send(.put, "/v1/apps/\(app)/store-settings", key: world.keys.admin,
                                               json: ["manyStoreAccountsLimit": 0]), .unprocessableContent, "validation-failed")
            let tokens = try await Self.tokens(api, app, "reseller", key: world.keys.developer)
            let now = Date()
            func buy(_ id: String, from storeAccount: String, hoursAgo: Double) async throws {
                var transaction = world.transaction("coins", id: id, purchased: now.addingTimeInterval(-hoursAgo * 3_600))
                transaction.appTransactionId = storeAccount
                _ = try expect(try await world.submit(api, try world.signed(transaction), account: tokens.appAccountToken),
                               .ok, as: Components.Schemas.PurchaseSubmission.self)
            }
            // Outside the window (30 h before the others): does not count.
            try await buy("6000000000000001", from: "store-old", hoursAgo: 40)
            try await buy("6000000000000002", from: "store-a", hoursAgo: 5)
            try await buy("6000000000000003", from: "store-b", hoursAgo: 4)
            try await buy("6000000000000004", from: "store-a", hoursAgo: 3)
            #expect(try await Self.signals(api, app, key: world.keys.auditor).isEmpty, "two App Store accounts: N, not more")
            try await buy("6000000000000005", from: "store-c", hoursAgo: 2)
            let many = try await Self.signals(api, app, "&kind=manyStoreAccounts", key: world.keys.auditor)
            #expect(many.count == 1)
            #expect(many.first?.storeAccounts == ["store-a", "store-b", "store-c"] && many.first?.storeAccountCount == 3)
            #expect(many.first?.limit == 2 && many.first?.windowHours == 24 && many.first?.transactionId == "6000000000000005")
            #expect(many.first?.accountToken == tokens.appAccountToken)
            try await buy("6000000000000006", from: "store-d", hoursAgo: 1)
            // Pages of one, newest first, by cursor.
            var seen: [String] = []
            var cursor: String?
            repeat {
                let page = try expect(try await api.send(.get, "/v1/apps/\(app)/signals?limit=1\(cursor.map { "&cursor=\($0)" } ?? "")",
                                                         key: world.keys.developer), .ok,
                                      as: Components.Schemas.SignalPage.self)
                seen += page.items.map(\.transactionId)
                cursor = page.nextCursor
            } while cursor != nil
            #expect(seen == ["6000000000000006", "6000000000000005"])
            _ = try problem(try await api.send(.get, "/v1/apps/\(app)/signals?cursor=bm90LWFuLWlk", key: world.keys.admin),
                            .unprocessableContent, "validation-failed")
            _ = try problem(try await api.send(.get, "/v1/apps/\(app)/signals?accountToken=nope", key: world.keys.admin),
                            .unprocessableContent, "validation-failed")
            let future = try await Self.signals(api, app, "&since=\(Self.rfc3339(now.addingTimeInterval(3_600)))",
                                                key: world.keys.admin)
            #expect(future.isEmpty)
        }
    }

    @Test("refunds are signals, named with the account credited; a refund of no account's transaction too")
    func refunds() async throws {
        let fixture = try await APIFixture.forSuite(Self.suite)
        try await fixture.purchases { api in
            let world = try await PurchaseWorld.make(api, fixture: fixture, app: "com.accounts.refunds")
            let tokens = try await Self.tokens(api, world.app, "refunded", key: world.keys.developer)
            var bought = world.transaction("premium", type: .nonConsumable, id: "7000000000000001")
            _ = try expect(try await world.submit(api, try world.signed(bought), account: tokens.appAccountToken),
                           .ok, as: Components.Schemas.PurchaseSubmission.self)
            bought.revocationDate = AppStoreDate(Date())
            bought.revocationReason = .appIssue
            try await Self.notify(api, world.app, .refund, bought)
            try await Self.notify(api, world.app, .refund, bought)
            var anonymous = world.transaction("coins", id: "7000000000000002")
            anonymous.revocationDate = AppStoreDate(Date())
            try await Self.notify(api, world.app, .refund, anonymous)
            let refunds = try await Self.signals(api, world.app, "&kind=refund", key: world.keys.auditor)
            #expect(refunds.map(\.transactionId) == ["7000000000000002", "7000000000000001"])
            #expect(refunds.map(\.accountToken) == [nil, tokens.appAccountToken])
            #expect(refunds.last?.revocationReason == 1 && refunds.last?.source.kind == .notification)
        }
    }

    @Test("who may: client keys make no tokens and read no accounts or signals; an auditor reads signals only; scoped keys see only their apps")
    func roles() async throws {
        let fixture = try await APIFixture.forSuite(Self.suite)
        try await fixture.purchases { api in
            let world = try await PurchaseWorld.make(api, fixture: fixture, app: "com.accounts.roles")
            try await api.createApp("com.accounts.roles.other", key: world.keys.admin)
            let token = PurchaseWorld.account()
            let tokens = "/v1/apps/\(world.app)/account-tokens"
            let account = "/v1/apps/\(world.app)/accounts/\(token)"
            let signals = "/v1/apps/\(world.app)/signals"
            for key in [world.client, world.keys.reviewer, world.keys.auditor] {
                _ = try problem(try await api.send(.post, tokens, key: key, json: ["account": "x"]), .forbidden, "forbidden")
                _ = try problem(try await api.send(.get, account, key: key), .forbidden, "forbidden")
            }
            for key in [world.client, world.keys.reviewer] {
                _ = try problem(try await api.send(.get, signals, key: key), .forbidden, "forbidden")
            }
            _ = try expect(try await api.send(.get, signals, key: world.keys.auditor), .ok, as: Components.Schemas.SignalPage.self)
            for role in [KeyRole.admin, .developer, .auditor] {
                let scoped = try await fixture.key(role, apps: ["com.accounts.roles.other"])
                _ = try problem(try await api.send(.get, signals, key: scoped), .notFound, "not-found")
                if role != .auditor {
                    _ = try problem(try await api.send(.post, tokens, key: scoped, json: ["account": "x"]), .notFound, "not-found")
                    _ = try problem(try await api.send(.get, account, key: scoped), .notFound, "not-found")
                }
            }
            let mine = try await fixture.key(.developer, apps: [world.app])
            _ = try await Self.tokens(api, world.app, "x", key: mine)
            _ = try await Self.account(api, world.app, token, key: mine)
            _ = try problem(try await api.send(.post, "/v1/apps/com.accounts.none/account-tokens", key: world.keys.admin,
                                               json: ["account": "x"]), .notFound, "not-found")
            _ = try problem(try await api.send(.post, tokens, json: ["account": "x"]), .unauthorized, "unauthorized")
        }
    }

    static func rfc3339(_ date: Date) -> String {
        ISO8601DateFormatter().string(from: date)
    }
}
