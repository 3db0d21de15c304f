import CatalogCore
import CatalogStore
import CatalogTestSupport
import Foundation
import PostgresNIO
import PurchaseCore
import Testing

/// What the database holds of purchases whatever the client (sql/0013): raw SQL, as the superuser or as the
/// service's role, tries to break it.
@Suite("Purchase schema invariants")
struct PurchaseSchemaTests {
    static let suite = "purchase_schema"
    static let alice = "3f2504e0-4f89-11d3-9a0c-0305e82c3301"

    /// An app, a client key of it and one recorded transaction, through the database's own functions.
    static func world(_ database: Database, _ bundleID: String) async throws -> UUID {
        _ = try await StoreFixtures.app(database, bundleID)
        let keyID = UUID()
        try await StoreFixtures.run("""
            INSERT INTO api_keys (id, name, role, apps, token_hash)
            VALUES ('\(keyID)', 'client', 'client', '{\(bundleID)}', sha256('\(keyID)'::text::bytea))
            """, in: database)
        try await StoreFixtures.run("""
            SELECT * FROM purchases_record_signed('[{"app": "\(bundleID)", "keyId": "\(keyID)",
                "accountToken": "\(alice)", "proofSha256": "\(String(repeating: "ab", count: 32))",
                "environment": "Production", "actor": {"keyId": "\(keyID)", "name": "client", "role": "client"},
                "facts": {"environment": "Production", "transactionId": "1000", "originalTransactionId": "1000",
                          "productId": "coins", "quantity": 1, "purchaseDate": "2025-11-01T10:00:00.000Z"}}]')
            """, in: database)
        return keyID
    }

    static func refusal(_ sql: String, in url: DatabaseURL) async -> String? {
        do {
            try await TestDatabase.execute(sql, in: url)
            return nil
        } catch let error as PSQLError {
            return error.serverInfo?[.sqlState]
        } catch {
            return "\(error)"
        }
    }

    @Test("a lookup by the ledger's key uses the key's index before the table has statistics (0022)")
    func keyLookupBeforeStatistics() async throws {
        // A database of its own whose ledger is never analyzed (autovacuum off for it): the planner knows only
        // the table's size. The foreign keys of ledger_sources and account_signals look a transaction up
        // exactly so, with a plan each connection keeps.
        let url = try await TestDatabase.forSuite("ledger_plan_unanalyzed")
        try await TestDatabase.execute("ALTER TABLE ledger_transactions SET (autovacuum_enabled = off)", in: url)
        let bundleID = "com.example.plans"
        try await TestDatabase.withDatabase(url) { database in
            let keyID = try await Self.world(database, bundleID)
            try await StoreFixtures.run("""
                SELECT count(*) FROM purchases_record_signed((
                    SELECT jsonb_agg(jsonb_build_object(
                        'app', '\(bundleID)', 'keyId', '\(keyID)', 'accountToken', '',
                        'proofSha256', encode(sha256(n::text::bytea), 'hex'), 'environment', 'Production',
                        'actor', jsonb_build_object('keyId', '\(keyID)', 'name', 'client', 'role', 'client'),
                        'facts', jsonb_build_object('environment', 'Production', 'transactionId', (2000 + n)::text,
                                                    'originalTransactionId', (2000 + n)::text, 'productId', 'coins',
                                                    'quantity', 1, 'purchaseDate', '2025-11-01T10:00:00.000Z')))
                    FROM generate_series(1, 2000) AS n))
                """, in: database)
        }
        let plan = try await TestDatabase.withClient(url, maximumConnections: 1) { client in
            try await client.withConnection { connection in
                for sql in [
                    """
                    PREPARE key_lookup(text, store_environment, text) AS
                    SELECT 1 FROM ONLY ledger_transactions x
                    WHERE app = $1 AND environment::anyenum = $2::anyenum AND transaction_id = $3 FOR KEY SHARE OF x
                    """,
                    "SET plan_cache_mode = force_generic_plan",
                ] {
                    _ = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: connection.logger).collect()
                }
                let rows = try await connection.query(
                    PostgresQuery(unsafeSQL: "EXPLAIN EXECUTE key_lookup('\(bundleID)', 'Production', '2500')"),
                    logger: connection.logger
                ).collect()
                return try rows.map { try $0.decode(String.self) }.joined(separator: "\n")
            }
        }
        #expect(plan.contains("Index Scan using ledger_transactions_pkey"), "\(plan)")
        #expect(!plan.contains("Filter"), "\(plan)")
    }

    @Test("the database's purchase enums hold exactly the domain's cases")
    func enumsAgree() async throws {
        let url = try await TestDatabase.forSuite(Self.suite)
        try await TestDatabase.withDatabase(url) { database in
            func labels(_ type: String) async throws -> [String] {
                try await StoreFixtures.values(
                    "SELECT enumlabel::text FROM pg_enum WHERE enumtypid = '\(type)'::regtype ORDER BY enumsortorder",
                    as: String.self, in: database)
            }
            let environments = try await labels("store_environment")
            let statuses = try await labels("submission_status")
            #expect(environments == AppStoreEnvironment.allCases.map(\.rawValue))
            #expect(statuses == SubmissionStatus.allCases.map(\.rawValue))
        }
    }

    @Test("a client key is limited to exactly one app")
    func clientKeyOneApp() async throws {
        let url = try await TestDatabase.forSuite(Self.suite)
        for apps in ["NULL", "'{}'", "'{com.a,com.b}'"] {
            let state = await Self.refusal("""
                INSERT INTO api_keys (name, role, apps, token_hash)
                VALUES ('c', 'client', \(apps), sha256(gen_random_uuid()::text::bytea))
                """, in: url)
            #expect(state == "23514", "\(apps)")
        }
        #expect(await Self.refusal("""
            INSERT INTO api_keys (name, role, apps, token_hash)
            VALUES ('c', 'client', '{com.a}', sha256(gen_random_uuid()::text::bytea))
            """, in: url) == nil)
    }

    @Test("one submission per app, account and proof; a verified one is final and keeps who made it")
    func submissions() async throws {
        let url = try await TestDatabase.forSuite(Self.suite)
        let keyID = try await TestDatabase.withDatabase(url) { try await Self.world($0, "com.raw.submissions") }
        let proof = "decode('\(String(repeating: "ab", count: 32))', 'hex')"
        #expect(await Self.refusal("""
            INSERT INTO purchase_submissions (app, key_id, account_token, kind, proof_sha256, next_attempt_at)
            VALUES ('com.raw.submissions', '\(keyID)', '\(Self.alice)', 'receipt', \(proof), now())
            """, in: url) == "23505")
        for change in ["status = 'queued', finished_at = NULL, next_attempt_at = now()",
                       "account_token = ''", "key_id = gen_random_uuid()", "attempts = 0"] {
            let state = await Self.refusal(
                "UPDATE purchase_submissions SET \(change) WHERE app = 'com.raw.submissions'", in: url)
            #expect(state != nil, "\(change)")
        }
        // A signed transaction is recorded only verified; a receipt's account token has one of two layouts.
        #expect(await Self.refusal("""
            INSERT INTO purchase_submissions (app, key_id, kind, proof_sha256, next_attempt_at)
            VALUES ('com.raw.submissions', '\(keyID)', 'signed_transaction', sha256('x'), now())
            """, in: url) == "23514")
        #expect(await Self.refusal("""
            INSERT INTO purchase_submissions (app, key_id, account_token, kind, proof_sha256, next_attempt_at)
            VALUES ('com.raw.submissions', '\(keyID)', 'alice@example.com', 'receipt', sha256('y'), now())
            """, in: url) == "23514")
    }

    @Test("the ledger is never deleted, a transaction is credited once and its identity never changes")
    func ledger() async throws {
        let url = try await TestDatabase.forSuite(Self.suite)
        _ = try await TestDatabase.withDatabase(url) { try await Self.world($0, "com.raw.ledger") }
        let row = "app = 'com.raw.ledger' AND transaction_id = '1000'"
        #expect(await Self.refusal("DELETE FROM ledger_transactions WHERE \(row)", in: url) == "IC003")
        #expect(await Self.refusal("TRUNCATE ledger_transactions CASCADE", in: url) == "IC003")
        #expect(await Self.refusal("DELETE FROM ledger_sources WHERE \(row)", in: url) == "IC003")
        for change in ["account_token = '9a0c0305-e82c-3301-3f25-04e04f8911d3'", "quantity = 5", "product_id = 'gold'",
                       "purchase_date = now()", "environment = 'Sandbox'"] {
            let state = await Self.refusal(
                "UPDATE ledger_transactions SET \(change), version = version + 1 WHERE \(row)", in: url)
            #expect(state == "IC002", "\(change)")
        }
        #expect(await Self.refusal("UPDATE ledger_transactions SET expires_date = now() WHERE \(row)", in: url) == "IC002")
        #expect(await Self.refusal(
            "UPDATE ledger_transactions SET expires_date = now(), version = version + 1 WHERE \(row)", in: url) == nil)
    }

    @Test("the service's role may not delete purchases, nor rewrite the history of the ledger")
    func serviceGrants() async throws {
        let url = try await TestDatabase.forSuite(Self.suite)
        _ = try await TestDatabase.withDatabase(url) { try await Self.world($0, "com.raw.grants") }
        let service = try await TestDatabase.serviceURL(for: url)
        for statement in [
            "DELETE FROM purchase_submissions WHERE app = 'com.raw.grants'",
            "DELETE FROM store_settings WHERE app = 'com.raw.grants'",
            "DELETE FROM app_store_notifications",
            "UPDATE ledger_sources SET account_token = '' WHERE app = 'com.raw.grants'",
            "UPDATE history_events SET reason = 'rewritten' WHERE app = 'com.raw.grants'",
            "DELETE FROM history_events WHERE app = 'com.raw.grants'",
        ] {
            #expect(await Self.refusal(statement, in: service) == "42501", "\(statement)")
        }
        // What the service does do, it may.
        #expect(await Self.refusal("SELECT count(*) FROM ledger_transactions, ledger_sources, submission_receipts",
                                   in: service) == nil)
    }

    @Test("the ledger's events are in the app's chain, and the chain still verifies")
    func chain() async throws {
        let url = try await TestDatabase.forSuite(Self.suite)
        try await TestDatabase.withDatabase(url) { database in
            _ = try await Self.world(database, "com.raw.chain")
            let kinds = try await StoreFixtures.values(
                "SELECT kind::text FROM history_events WHERE app = 'com.raw.chain' ORDER BY sequence",
                as: String.self, in: database)
            #expect(kinds == ["app_created", "transaction_recorded"])
            let verification = try await database.history.verify(chain: "com.raw.chain")
            #expect(verification.verified && verification.events == 2)
            // The product's own history does not hold the sales recorded under its productId.
            #expect(try await database.history.forProduct("com.raw.chain", "coins", after: nil, limit: 10).isEmpty)
        }
    }
}
