import CatalogCore
import CatalogStore
import CatalogTestSupport
import Foundation
import PostgresNIO
import PurchaseCore
import Testing

/// Accounts on real PostgreSQL: the per-app secret, the account key of either token form, one account's
/// transactions, and the signals the ledger's writes raise in their own transaction; each test with its own app.
@Suite("Accounts in the ledger")
struct AccountLedgerTests {
    static let suite = "account_ledger"
    static let alice = "3f2504e0-4f89-11d3-9a0c-0305e82c3301"
    static let bob = "9a0c0305-e82c-3301-3f25-04e04f8911d3"
    static let day = Date(timeIntervalSince1970: 1_760_000_000)
    static let hour: TimeInterval = 3_600

    static func facts(_ transactionID: String, product: String = "premium", storeAccount: String? = nil,
                      at date: Date = day, _ change: (inout TransactionFacts) -> Void = { _ in }) -> TransactionFacts {
        var facts = TransactionFacts(environment: .production, transactionId: transactionID, productId: product,
                                     appleType: "Non-Consumable", applePurchaseType: .nonConsumable, purchaseDate: date,
                                     appTransactionId: storeAccount)
        change(&facts)
        return facts
    }

    /// An app with a non-consumable `premium`, and a client key of it.
    static func world(_ database: Database, _ bundleID: String) async throws -> (UUID, Actor) {
        let app = try await StoreFixtures.app(database, bundleID)
        _ = try await StoreFixtures.product(database, in: app, id: "premium", type: .nonConsumable)
        let key = APIKey(id: UUID(), name: "client of \(bundleID)", role: .client, apps: [bundleID], createdAt: Date(),
                         expiresAt: nil, revokedAt: nil)
        try await database.keys.create(key, token: KeyToken.generate(), event: HistoryRecord(
            kind: .keyCreated, bundleID: nil, actor: StoreFixtures.actor))
        return (key.id, key.actor)
    }

    @discardableResult
    static func submit(_ database: Database, _ bundleID: String, _ key: (UUID, Actor), account: String,
                       proof: String, facts: TransactionFacts) async throws -> PurchaseSubmissionRepository.Intake {
        try await database.submissions.recordSigned(.init(
            bundleID: bundleID, keyID: key.0, accountToken: account, proof: .signedTransaction(proof), facts: facts,
            actor: key.1, requestID: "test"))
    }

    static func signals(_ database: Database, _ bundleID: String, _ filter: SignalFilter = SignalFilter())
        async throws -> [AccountSignal]
    {
        try await database.signals.list(bundleID, filter: filter, afterID: nil, limit: 100)
    }

    static func count(_ sql: String, in database: Database) async throws -> Int {
        try await StoreFixtures.values(sql, as: Int.self, in: database).first ?? -1
    }

    @Test("every app gets its own secret when it is made; a secret never changes")
    func secrets() async throws {
        let url = try await TestDatabase.forSuite(Self.suite)
        try await TestDatabase.withDatabase(url) { database in
            _ = try await StoreFixtures.app(database, "com.accounts.secret.a")
            _ = try await StoreFixtures.app(database, "com.accounts.secret.b")
            let a = try #require(try await database.accounts.secret("com.accounts.secret.a"))
            let b = try #require(try await database.accounts.secret("com.accounts.secret.b"))
            #expect(a != b && a.bytes.count == 32)
            #expect(try await database.accounts.secret("com.accounts.none") == nil)
            await #expect(throws: (any Error).self) {
                try await StoreFixtures.run("UPDATE account_token_secrets SET secret = secret WHERE app = 'com.accounts.secret.a'",
                                            in: database)
            }
            #expect(try await database.accounts.secret("com.accounts.secret.a") == a)
        }
    }

    @Test("apps made before accounts existed get a secret from the migration")
    func backfilled() async throws {
        let all = try Migrator.bundled()
        let version = try #require(all.first { $0.sql.contains("CREATE TABLE account_token_secrets") }?.version)
        let before = all.filter { $0.version < version }
        let url = try await TestDatabase.empty("accounts_backfill")
        let secret = try await TestDatabase.withClient(url) { client -> AccountTokenSecret? in
            _ = try await Migrator(migrations: before, logger: TestDatabase.logger).migrate(client)
            let database = Database(client: client, logger: TestDatabase.logger)
            _ = try await StoreFixtures.app(database, "com.accounts.before")
            _ = try await Migrator(migrations: all, logger: TestDatabase.logger).migrate(client)
            return try await database.accounts.secret("com.accounts.before")
        }
        #expect(secret?.bytes.count == 32)
    }

    @Test("the database's account key is PurchaseCore's, for both forms")
    func accountKeysAgree() async throws {
        let url = try await TestDatabase.forSuite(Self.suite)
        try await TestDatabase.withDatabase(url) { database in
            var generator = SeededGenerator(seed: 23)
            var tokens = [Self.alice, Self.bob, "00000000-0000-0000-0000-000000000000"]
            for _ in 0..<50 {
                let digest = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
                tokens.append(AccountTokens.applicationUsernameLayout(digest))
                tokens.append(AccountTokens(digest: digest).appAccountTokenText)
                tokens.append(UUID().uuidString.lowercased())
            }
            let list = tokens.map { "'\($0)'" }.joined(separator: ", ")
            let keys = try await StoreFixtures.values(
                "SELECT coalesce(iap_account_key(t)::text, '') FROM unnest(ARRAY[\(list)]) WITH ORDINALITY AS u(t, n) ORDER BY n",
                as: String.self, in: database)
            #expect(keys == tokens.map { AccountToken(parsing: $0)!.accountKeyText })
            #expect(try await StoreFixtures.values("SELECT iap_account_key('') IS NULL", as: Bool.self, in: database) == [true])
        }
    }

    /// 0034 checks the two forms without counted repeats; what it accepts, and the key it gives, must stay exactly
    /// what 0023's patterns accepted and gave, or a token stored before would read differently after.
    @Test("the token check and the account key accept exactly 0023's patterns, near misses included")
    func tokenFormsAsThePatterns() async throws {
        var generator = SeededGenerator(seed: 34)
        var valid = [Self.alice, Self.bob, "00000000-0000-0000-0000-000000000000", "",
                     "ffffffff-ffff-ffff-ffff-ffffffffffff"]
        for _ in 0..<20 {
            let digest = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
            valid.append(AccountTokens.applicationUsernameLayout(digest))
            valid.append(AccountTokens(digest: digest).appAccountTokenText)
        }
        // Each valid token changed in one place: a character replaced, removed or added, anywhere.
        let strays: [Character] = ["-", "g", "A", "F", "0", "é", "\n", " ", "{", "_", "%"]
        var tokens = valid
        for token in valid where !token.isEmpty {
            let characters = Array(token)
            for _ in 0..<12 {
                let place = Int.random(in: 0..<characters.count, using: &generator)
                let stray = strays.randomElement(using: &generator)!
                var replaced = characters, removed = characters, added = characters
                replaced[place] = stray
                removed.remove(at: place)
                added.insert(stray, at: place)
                tokens += [String(replaced), String(removed), String(added)]
            }
            tokens += [token.uppercased(), token + "\n", "{" + token + "}", token.replacingOccurrences(of: "-", with: "")]
        }
        tokens += [String(repeating: "-", count: 36), String(repeating: "-", count: 71),
                   String(repeating: "a", count: 36), String(repeating: "a", count: 71),
                   "aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaa-", "aaaaaaaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaa",
                   "aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaé", "aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaéa"]
        let corpus = tokens, validCount = valid.count
        let url = try await TestDatabase.forSuite(Self.suite)
        try await TestDatabase.withDatabase(url) { database in
            let uuidForm = "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"
            let eightForm = "^[0-9a-f]{8}(-[0-9a-f]{8}){7}$"
            let rows = try await database.client.query("""
                SELECT t, iap_account_token_valid(t), t = '' OR t ~ \(uuidForm) OR t ~ \(eightForm),
                       coalesce(iap_account_key(t)::text, ''),
                       coalesce(CASE WHEN t ~ \(uuidForm) THEN t::uuid
                                     WHEN t ~ \(eightForm)
                                         THEN iap_uuid_v4_of(decode(replace(left(t, 35), '-', ''), 'hex')) END::text, '')
                FROM unnest(\(corpus)::text[]) AS t
                """)
            var count = 0, accepted = 0
            for try await (token, checked, expected, key, expectedKey)
                in rows.decode((String, Bool, Bool, String, String).self) {
                count += 1
                if expected { accepted += 1 }
                #expect(checked == expected, "\(token.debugDescription)")
                #expect(key == expectedKey, "\(token.debugDescription)")
            }
            #expect(count == corpus.count)
            // The corpus holds both answers: every valid token, and near misses the patterns refuse.
            #expect(accepted >= validCount && accepted < count / 2)
        }
    }

    /// PostgreSQL plans the signals' look-up once per connection. Made while the ledger was nearly empty (a new
    /// deployment's first minutes), the plan read the app's transactions by another index than the account's,
    /// all of them for each transaction written, until the ledger was analyzed again (0035).
    @Test("the signals' look-up for other App Store accounts reads the account's index, though planned on an empty ledger")
    func storeAccountsLookUpByIndex() async throws {
        let app = "com.accounts.lookup.plan"
        let url = try await TestDatabase.forSuite("signals_plan")
        try await TestDatabase.withDatabase(url) { database in
            _ = try await Self.world(database, app)
            try await StoreFixtures.run("ANALYZE ledger_transactions", in: database)
            /// `count` rows of the app's ledger, each with its App Store account; `id` and `account` are SQL of `g`.
            func rows(_ count: Int, id: String, account: String) -> String {
                """
                INSERT INTO ledger_transactions (app, environment, transaction_id, original_transaction_id, product_id,
                    apple_type, catalog_type, catalog_mismatch, quantity, purchase_date, original_purchase_date,
                    expires_date, revocation_date, revocation_reason, price, currency, storefront, app_transaction_id,
                    in_app_ownership_type, web_order_line_item_id, transaction_reason, account_token)
                SELECT n.* FROM generate_series(1, \(count)) AS g,
                    ledger_new_row('\(app)', jsonb_build_object('environment', 'Production',
                        'transactionId', \(id), 'productId', 'premium', 'purchaseDate', now() - interval '1 hour',
                        'appTransactionId', 'store-' || \(id)), \(account)) AS n
                """
            }
            let signals = """
                SELECT ledger_signals(NULL, ROW(r.*)::ledger_transactions, r.account_token, '{}', 'submission',
                                      gen_random_uuid(), '{"name": "test", "role": "client"}', 'test')
                FROM written r
                """
            try await database.client.withConnection { connection in
                func run(_ sql: String) async throws -> [PostgresRow] {
                    try await connection.query(PostgresQuery(unsafeSQL: sql), logger: database.logger).collect()
                }
                func others(_ prefix: String, _ count: Int) async throws {
                    _ = try await run(rows(count, id: "'\(prefix)-' || g", account: "gen_random_uuid()::text"))
                }
                _ = try await run(rows(1, id: "'first'", account: "'\(Self.alice)'"))
                _ = try await run("""
                    CREATE TEMP TABLE written AS SELECT * FROM ledger_transactions WHERE transaction_id = 'first'
                    """)
                // The look-up's plan is made on this connection while the ledger is a few pages, unanalyzed (generic
                // from the sixth call): a deployment's first minutes.
                try await others("early", 300)
                for _ in 0..<8 { _ = try await run(signals) }
                // Then the ledger grows by thousands of other accounts' transactions in the window, unanalyzed.
                try await others("late", 5000)
                _ = try await run("BEGIN")
                for _ in 0..<8 { _ = try await run(signals) }
                let read = try await run("""
                    SELECT sum(pg_stat_get_xact_tuples_returned(i.indexrelid))::int FROM pg_index i
                    WHERE i.indrelid = 'ledger_transactions'::regclass
                    """)
                _ = try await run("COMMIT")
                let entries = try #require(read.first).decode(Int.self)
                // A few entries for each look-up, not the 5,300 transactions of other accounts.
                #expect(entries < 100, "\(entries) entries of the ledger's indexes read by 8 look-ups")
            }
            #expect(try await StoreFixtures.values("SELECT count(*) FROM ledger_transactions", as: Int.self,
                                                   in: database) == [5301])
        }
    }

    @Test("one account's transactions, whichever form of its token brought them; others' stay out")
    func oneAccount() async throws {
        let url = try await TestDatabase.forSuite(Self.suite)
        try await TestDatabase.withDatabase(url) { database in
            let bundleID = "com.accounts.one"
            let key = try await Self.world(database, bundleID)
            let tokens = AccountTokens(digest: Array(repeating: 0xAB, count: 32))
            try await Self.submit(database, bundleID, key, account: tokens.applicationUsername, proof: "a",
                                  facts: Self.facts("t1"))
            try await Self.submit(database, bundleID, key, account: tokens.appAccountTokenText, proof: "b",
                                  facts: Self.facts("t2", product: "gems"))
            try await Self.submit(database, bundleID, key, account: Self.bob, proof: "c", facts: Self.facts("t3"))
            let (transactions, types) = try await database.accounts.transactions(bundleID, account: tokens.appAccountToken)
            #expect(transactions.map(\.transactionId).sorted() == ["t1", "t2"])
            #expect(types == ["premium": .nonConsumable])
            // The second form is the same account: credited, and no signal.
            #expect(try await Self.signals(database, bundleID).isEmpty)
        }
    }

    @Test("a transaction brought for a second account: not credited, sharedTransaction names both, once")
    func shared() async throws {
        let url = try await TestDatabase.forSuite(Self.suite)
        try await TestDatabase.withDatabase(url) { database in
            let bundleID = "com.accounts.shared"
            let key = try await Self.world(database, bundleID)
            try await Self.submit(database, bundleID, key, account: Self.alice, proof: "a", facts: Self.facts("t1"))
            let second = try await Self.submit(database, bundleID, key, account: Self.bob, proof: "b", facts: Self.facts("t1"))
            #expect(second.submission.transactions.map(\.credited) == [false])
            // Brought again for bob in another proof: still one signal.
            try await Self.submit(database, bundleID, key, account: Self.bob, proof: "c", facts: Self.facts("t1"))
            let signals = try await Self.signals(database, bundleID)
            #expect(signals.map(\.kind) == [.sharedTransaction])
            #expect(signals.first?.accountToken == Self.alice && signals.first?.otherAccountToken == Self.bob)
            #expect(signals.first?.transactionId == "t1" && signals.first?.sourceId == second.submission.id)
            // Either account finds it.
            #expect(try await Self.signals(database, bundleID, SignalFilter(account: UUID(uuidString: Self.bob))).count == 1)
            #expect(try await Self.signals(database, bundleID, SignalFilter(account: UUID(uuidString: Self.alice))).count == 1)
            #expect(try await Self.signals(database, bundleID, SignalFilter(kind: .refund)).isEmpty)
            let events = try await StoreFixtures.values(
                "SELECT changes::text FROM history_events WHERE app = '\(bundleID)' AND kind = 'signal_raised'",
                as: String.self, in: database)
            #expect(events.count == 1 && events[0].contains(Self.alice) && events[0].contains(Self.bob))
            #expect(try await database.history.verify(chain: bundleID).verified)
        }
    }

    @Test("Apple's appAccountToken credits its account even when another brings it; the other is named")
    func appleToken() async throws {
        let url = try await TestDatabase.forSuite(Self.suite)
        try await TestDatabase.withDatabase(url) { database in
            let bundleID = "com.accounts.apple"
            let key = try await Self.world(database, bundleID)
            let intake = try await Self.submit(database, bundleID, key, account: Self.bob, proof: "a",
                                               facts: Self.facts("t1") { $0.appAccountToken = Self.alice })
            #expect(intake.submission.transactions.map(\.transaction.accountToken) == [Self.alice])
            #expect(intake.submission.transactions.map(\.credited) == [false])
            let signals = try await Self.signals(database, bundleID)
            #expect(signals.map(\.kind) == [.sharedTransaction] && signals.first?.otherAccountToken == Self.bob)
        }
    }

    @Test("manyStoreAccounts fires at N + 1 App Store accounts within the window, not at N, not outside it")
    func manyStoreAccounts() async throws {
        let url = try await TestDatabase.forSuite(Self.suite)
        try await TestDatabase.withDatabase(url) { database in
            let bundleID = "com.accounts.many"
            let key = try await Self.world(database, bundleID)
            let settings = try await database.storeSettings.find(bundleID) ?? .defaults
            let limited = try settings.replaced(by: StoreSettingsUpdate(manyStoreAccountsLimit: 2, manyStoreAccountsWindowHours: 24))
            _ = try await database.storeSettings.save(limited, in: bundleID, previousVersion: settings.version, event: HistoryRecord(
                kind: .storeSettingsChanged, bundleID: bundleID, actor: StoreFixtures.actor))
            // Two App Store accounts (one of them twice) within a day: N = 2, no signal.
            for (index, (storeAccount, hours)) in [("s1", 0.0), ("s2", 1.0), ("s1", 2.0)].enumerated() {
                try await Self.submit(database, bundleID, key, account: Self.alice, proof: "p\(index)",
                                      facts: Self.facts("t\(index)", storeAccount: storeAccount,
                                                        at: Self.day.addingTimeInterval(hours * Self.hour)))
            }
            #expect(try await Self.signals(database, bundleID).isEmpty)
            // A third at 25 h: the window (1 h, 25 h] holds s1 at 2 h only (s2 at 1 h is on its open end): 2, no signal.
            try await Self.submit(database, bundleID, key, account: Self.alice, proof: "p3",
                                  facts: Self.facts("t3", storeAccount: "s3", at: Self.day.addingTimeInterval(25 * Self.hour)))
            #expect(try await Self.signals(database, bundleID).isEmpty)
            // A fourth at 24.5 h: (0.5 h, 24.5 h] holds s2 and s1 (at 2 h; the one at 0 h is outside): 3 > 2.
            try await Self.submit(database, bundleID, key, account: Self.alice, proof: "p3b",
                                  facts: Self.facts("t3b", storeAccount: "s4", at: Self.day.addingTimeInterval(24.5 * Self.hour)))
            var signals = try await Self.signals(database, bundleID)
            #expect(signals.map(\.kind) == [.manyStoreAccounts])
            #expect(signals.first?.storeAccounts == ["s1", "s2", "s4"] && signals.first?.storeAccountCount == 3)
            #expect(signals.first?.limit == 2 && signals.first?.windowHours == 24 && signals.first?.accountToken == Self.alice)
            // Another a week later: alone in its window.
            try await Self.submit(database, bundleID, key, account: Self.alice, proof: "p4",
                                  facts: Self.facts("t4", storeAccount: "s6", at: Self.day.addingTimeInterval(200 * Self.hour)))
            // Another account's store accounts are its own.
            try await Self.submit(database, bundleID, key, account: Self.bob, proof: "p5",
                                  facts: Self.facts("t5", storeAccount: "s5", at: Self.day.addingTimeInterval(25 * Self.hour)))
            signals = try await Self.signals(database, bundleID)
            #expect(signals.count == 1)
            #expect(try await database.history.verify(chain: bundleID).verified)
        }
    }

    @Test("a refund by notification marks the ledger and raises refund, in the chain")
    func refund() async throws {
        let url = try await TestDatabase.forSuite(Self.suite)
        try await TestDatabase.withDatabase(url) { database in
            let bundleID = "com.accounts.refund"
            let key = try await Self.world(database, bundleID)
            try await Self.submit(database, bundleID, key, account: Self.alice, proof: "a", facts: Self.facts("t1"))
            let refund = NotificationRecord(
                notificationUUID: UUID(), bundleID: bundleID, notificationType: "REFUND", subtype: nil,
                environment: .production, signedDate: Date(),
                facts: Self.facts("t1") { $0.revocationDate = Self.day.addingTimeInterval(Self.hour); $0.revocationReason = 1 },
                requestID: nil)
            #expect(try await database.ledger.recordNotification(refund).outcome == .updated)
            // The same notification again changes nothing and raises nothing.
            _ = try await database.ledger.recordNotification(refund)
            let signals = try await Self.signals(database, bundleID)
            #expect(signals.map(\.kind) == [.refund] && signals.first?.accountToken == Self.alice)
            #expect(signals.first?.revocationDate == Self.day.addingTimeInterval(Self.hour) && signals.first?.revocationReason == 1)
            #expect(signals.first?.sourceKind == "notification" && signals.first?.sourceId == refund.notificationUUID)
            let actors = try await StoreFixtures.values(
                "SELECT actor_name FROM history_events WHERE app = '\(bundleID)' AND kind = 'signal_raised'",
                as: String.self, in: database)
            #expect(actors == ["App Store"])
            #expect(try await database.history.verify(chain: bundleID).verified)
        }
    }

    @Test("the database raises what PurchaseCore's rule raises, source after source")
    func rulesAgree() async throws {
        let url = try await TestDatabase.forSuite(Self.suite)
        try await TestDatabase.withDatabase(url) { database in
            let bundleID = "com.accounts.rules"
            let key = try await Self.world(database, bundleID)
            let tokens = AccountTokens(digest: Array(repeating: 0x5C, count: 32))
            let steps: [(String, TransactionFacts)] = [
                (Self.alice, Self.facts("x1", storeAccount: "a1")),
                (Self.alice, Self.facts("x2", storeAccount: "a2")),
                (Self.bob, Self.facts("x1", storeAccount: "a1")),
                (Self.alice, Self.facts("x3", storeAccount: "a3")),
                (tokens.applicationUsername, Self.facts("x4", storeAccount: "a4") { $0.appAccountToken = tokens.appAccountTokenText }),
                (Self.alice, Self.facts("x5", storeAccount: "a5")),
                ("", Self.facts("x2", storeAccount: "a2") { $0.revocationDate = Self.day; $0.revocationReason = 0 }),
                (Self.bob, Self.facts("x6", storeAccount: "a6") { $0.appAccountToken = Self.alice }),
            ]
            var ledger: [String: LedgerTransaction] = [:]
            var expected: [AccountSignalRule.Raised] = []
            var shared: Set<String> = []
            for (index, (account, facts)) in steps.enumerated() {
                if account.isEmpty {
                    _ = try await database.ledger.recordNotification(NotificationRecord(
                        notificationUUID: UUID(), bundleID: bundleID, notificationType: "REFUND", subtype: nil,
                        environment: .production, signedDate: Date(), facts: facts, requestID: nil))
                } else {
                    try await Self.submit(database, bundleID, key, account: account, proof: "p\(index)", facts: facts)
                }
                let before = ledger[facts.transactionId]
                let after = before.map { $0.merging(facts, account: account, at: Self.day).0 }
                    ?? LedgerTransaction.recording(facts, in: bundleID, account: account, inheritedAccount: nil,
                                                   catalogType: .nonConsumable, at: Self.day)
                let creditedKey = AccountToken(parsing: after.accountToken)?.accountKey
                let recent = Set(ledger.values.filter {
                    $0.transactionId != after.transactionId && creditedKey != nil
                        && AccountToken(parsing: $0.accountToken)?.accountKey == creditedKey
                }.compactMap(\.appTransactionId))
                let raised = AccountSignalRule.raised(before: before, after: after, account: account,
                                                      appleAccount: facts.appAccountToken, recentStoreAccounts: recent,
                                                      limit: 3)
                expected += raised.filter { signal in
                    // The database raises a sharedTransaction once per transaction and other account.
                    guard case .sharedTransaction(_, let other) = signal else { return true }
                    return shared.insert("\(facts.transactionId) \(AccountToken(parsing: other)!.accountKey)").inserted
                }
                ledger[facts.transactionId] = after
            }
            let stored = try await Self.signals(database, bundleID).reversed().map { signal -> AccountSignalRule.Raised in
                switch signal.kind {
                case .sharedTransaction: .sharedTransaction(credited: signal.accountToken, broughtFor: signal.otherAccountToken ?? "")
                case .manyStoreAccounts: .manyStoreAccounts(account: signal.accountToken, storeAccounts: signal.storeAccounts ?? [])
                case .refund: .refund(account: signal.accountToken)
                }
            }
            #expect(stored == expected)
            #expect(expected.count >= 4)
            #expect(try await database.history.verify(chain: bundleID).verified)
        }
    }
}
