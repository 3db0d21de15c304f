import CatalogCore
import CatalogStore
import CatalogTestSupport
import Foundation
import PostgresNIO
import PurchaseCore
import Testing

/// The ledger's writes on real PostgreSQL: intake of signed transactions and receipts (batched as the service
/// runs them), the worker's verified outcomes, notifications; each test with its own app.
@Suite("Ledger writes")
struct LedgerWriteTests {
    static let suite = "ledger_writes"
    static let alice = "3f2504e0-4f89-11d3-9a0c-0305e82c3301"
    static let bob = "9a0c0305-e82c-3301-3f25-04e04f8911d3"
    static let day = Date(timeIntervalSince1970: 1_760_000_000)

    static func facts(_ transactionID: String = "2000000001", product: String = "coins",
                      _ change: (inout TransactionFacts) -> Void = { _ in }) -> TransactionFacts {
        var facts = TransactionFacts(environment: .production, transactionId: transactionID, productId: product,
                                     appleType: "Consumable", applePurchaseType: .consumable, purchaseDate: day,
                                     price: 990, currency: "USD")
        change(&facts)
        return facts
    }

    /// An app with a consumable `coins`, and a client key of it (its id and actor).
    static func world(_ database: Database, _ bundleID: String) async throws -> (UUID, Actor) {
        let app = try await StoreFixtures.app(database, bundleID)
        _ = try await StoreFixtures.product(database, in: app)
        let key = APIKey(id: UUID(), name: "client of \(bundleID)", role: .client, apps: [bundleID], createdAt: Date(),
                         expiresAt: nil, revokedAt: nil)
        try await database.keys.create(key, token: KeyToken.generate(), event: HistoryRecord(
            kind: .keyCreated, bundleID: nil, actor: StoreFixtures.actor))
        return (key.id, key.actor)
    }

    static func signed(_ bundleID: String, _ key: (UUID, Actor), account: String = alice, jws: String = "jws-1",
                       facts: TransactionFacts = facts()) -> PurchaseSubmissionRepository.SignedPurchase {
        .init(bundleID: bundleID, keyID: key.0, accountToken: account, proof: .signedTransaction(jws), facts: facts,
              actor: key.1, requestID: "test")
    }

    static func count(_ sql: String, in database: Database) async throws -> Int {
        try await StoreFixtures.values(sql, as: Int.self, in: database).first ?? -1
    }

    @Test("a signed transaction is recorded once: the same proof again is the same submission, not a second row")
    func signedOnce() async throws {
        let url = try await TestDatabase.forSuite(Self.suite)
        try await TestDatabase.withDatabase(url) { database in
            let key = try await Self.world(database, "com.ledger.once")
            let first = try await database.submissions.recordSigned(Self.signed("com.ledger.once", key))
            #expect(first.created && first.submission.status == .verified && first.submission.kind == .signedTransaction)
            let transaction = try #require(first.submission.transactions.first)
            #expect(transaction.credited && !transaction.alreadyRecorded)
            #expect(transaction.transaction.quantity == 1 && transaction.transaction.price == 990)
            #expect(!transaction.transaction.catalogMismatch && transaction.transaction.catalogType == .consumable)
            let again = try await database.submissions.recordSigned(Self.signed("com.ledger.once", key))
            #expect(!again.created && again.submission.id == first.submission.id)
            #expect(again.submission.transactions.map(\.transaction) == first.submission.transactions.map(\.transaction))
            #expect(try await Self.count("SELECT count(*)::int FROM purchase_submissions WHERE app = 'com.ledger.once'",
                                         in: database) == 1)
            #expect(try await Self.count("SELECT count(*)::int FROM history_events WHERE app = 'com.ledger.once' AND kind = 'transaction_recorded'",
                                         in: database) == 1)
            #expect(try await database.history.verify(chain: "com.ledger.once").verified)
        }
    }

    @Test("1,000 concurrent submissions of one proof, batched: one submission, one ledger row, one event")
    func concurrentProof() async throws {
        try await StoreFixtures.withPool(Self.suite, size: 8, maxWaiting: 2_000) { pooled, _, _ in
            let database = Database(client: pooled.client, logger: pooled.logger, pool: pooled.pool, batching: true)
            let key = try await Self.world(database, "com.ledger.thousand")
            let ids = try await withThrowingTaskGroup(of: UUID.self) { group in
                for _ in 0..<1_000 {
                    group.addTask {
                        try await database.submissions.recordSigned(Self.signed("com.ledger.thousand", key)).submission.id
                    }
                }
                var ids = Set<UUID>()
                for try await id in group { ids.insert(id) }
                return ids
            }
            #expect(ids.count == 1)
            #expect(try await Self.count("SELECT count(*)::int FROM ledger_transactions WHERE app = 'com.ledger.thousand'",
                                         in: database) == 1)
            #expect(try await Self.count("SELECT count(*)::int FROM purchase_submissions WHERE app = 'com.ledger.thousand'",
                                         in: database) == 1)
            #expect(try await Self.count("SELECT count(*)::int FROM history_events WHERE app = 'com.ledger.thousand' AND kind = 'transaction_recorded'",
                                         in: database) == 1)
        }
    }

    @Test("concurrent different purchases in batches: each answered with its own submission and transaction")
    func concurrentDifferent() async throws {
        try await StoreFixtures.withPool(Self.suite, size: 8, maxWaiting: 2_000) { pooled, _, _ in
            let database = Database(client: pooled.client, logger: pooled.logger, pool: pooled.pool, batching: true)
            let key = try await Self.world(database, "com.ledger.many")
            let answers = try await withThrowingTaskGroup(of: (Int, String).self) { group in
                for index in 0..<300 {
                    group.addTask {
                        let intake = try await database.submissions.recordSigned(Self.signed(
                            "com.ledger.many", key, jws: "jws-\(index)", facts: Self.facts("t\(index)")))
                        return (index, intake.submission.transactions.first?.transaction.transactionId ?? "")
                    }
                }
                var answers: [Int: String] = [:]
                for try await (index, transaction) in group { answers[index] = transaction }
                return answers
            }
            #expect(answers.count == 300 && answers.allSatisfy { $0.value == "t\($0.key)" })
            #expect(try await database.history.verify(chain: "com.ledger.many").verified)
        }
    }

    @Test("a transaction brought by two accounts is credited once, to the first")
    func sharedTransaction() async throws {
        let url = try await TestDatabase.forSuite(Self.suite)
        try await TestDatabase.withDatabase(url) { database in
            let key = try await Self.world(database, "com.ledger.shared")
            let first = try await database.submissions.recordSigned(Self.signed("com.ledger.shared", key))
            let second = try await database.submissions.recordSigned(
                Self.signed("com.ledger.shared", key, account: Self.bob))
            #expect(second.created && second.submission.id != first.submission.id)
            let shared = try #require(second.submission.transactions.first)
            #expect(!shared.credited && shared.alreadyRecorded && shared.transaction.accountToken == Self.alice)
            let (transaction, sources) = try #require(try await database.ledger.find(
                "com.ledger.shared", transactionID: "2000000001", environment: nil))
            #expect(transaction.accountToken == Self.alice && transaction.version == 1)
            #expect(sources.count == 2 && sources.filter(\.recorded).map(\.accountToken) == [Self.alice])
        }
    }

    @Test("catalogMismatch: a product the catalog lacks, or of another type, is recorded and flagged")
    func mismatch() async throws {
        let url = try await TestDatabase.forSuite(Self.suite)
        try await TestDatabase.withDatabase(url) { database in
            let key = try await Self.world(database, "com.ledger.mismatch")
            let unknown = try await database.submissions.recordSigned(Self.signed(
                "com.ledger.mismatch", key, jws: "a", facts: Self.facts("m1", product: "gems")))
            let wrongType = try await database.submissions.recordSigned(Self.signed(
                "com.ledger.mismatch", key, jws: "b", facts: Self.facts("m2") {
                    $0.appleType = "Non-Consumable"; $0.applePurchaseType = .nonConsumable
                }))
            #expect(unknown.submission.transactions.first?.transaction.catalogMismatch == true)
            #expect(unknown.submission.transactions.first?.transaction.catalogType == nil)
            #expect(wrongType.submission.transactions.first?.transaction.catalogMismatch == true)
        }
    }

    @Test("receipts: queued once per proof, verified by the lease that holds them, never by an expired one")
    func receipts() async throws {
        let url = try await TestDatabase.forSuite(Self.suite)
        try await TestDatabase.withDatabase(url) { database in
            let key = try await Self.world(database, "com.ledger.receipts")
            let receipt = PurchaseSubmissionRepository.QueuedReceipt(
                bundleID: "com.ledger.receipts", keyID: key.0, accountToken: Self.alice, receipt: "TUlJ\nVA==")
            let queued = try await database.submissions.queueReceipt(receipt)
            #expect(queued.created && queued.submission.status == .queued && queued.submission.nextAttemptAt != nil)
            // Whitespace does not make another receipt.
            let again = try await database.submissions.queueReceipt(.init(
                bundleID: "com.ledger.receipts", keyID: key.0, accountToken: Self.alice, receipt: "TUlJVA=="))
            #expect(!again.created && again.submission.id == queued.submission.id)
            let id = queued.submission.id
            // A worker leases it (attempt 1), its lease expires and another takes it (attempt 2).
            try await StoreFixtures.run("""
                UPDATE purchase_submissions SET status = 'verifying', attempts = 2, lease_expires_at = now() + interval '1 minute'
                WHERE id = '\(id)'
                """, in: database)
            let outcome = SubmissionQueue.Outcome(submissionID: id, attempts: 1, status: .verified, environment: .sandbox,
                                                  appleStatus: 0, transactions: [Self.facts("r1") { $0.environment = .sandbox }])
            #expect(try await !database.queue.record(outcome))
            var current = outcome
            current.attempts = 2
            #expect(try await database.queue.record(current))
            let verified = try #require(try await database.submissions.find("com.ledger.receipts", id: id))
            #expect(verified.status == .verified && verified.environment == .sandbox && verified.finishedAt != nil)
            #expect(verified.transactions.map(\.transaction.transactionId) == ["r1"] && verified.transactions[0].credited)
            #expect(try await Self.count("SELECT count(*)::int FROM submission_receipts WHERE submission_id = '\(id)'",
                                         in: database) == 0)
            // Recorded once: the same outcome again changes nothing.
            #expect(try await !database.queue.record(current))
            // The final one, sent again, answers as it stands.
            let final = try await database.submissions.queueReceipt(receipt)
            #expect(!final.created && final.submission.status == .verified && final.submission.transactions.count == 1)
        }
    }

    @Test("notifications: recorded once; a renewal adds a transaction for the original's account; a refund marks")
    func notifications() async throws {
        let url = try await TestDatabase.forSuite(Self.suite)
        try await TestDatabase.withDatabase(url) { database in
            let key = try await Self.world(database, "com.ledger.notified")
            let month = Self.day.addingTimeInterval(30 * 86_400)
            _ = try await database.submissions.recordSigned(Self.signed("com.ledger.notified", key, facts: Self.facts("s1") {
                $0.expiresDate = month
            }))
            func notification(_ type: String, _ facts: TransactionFacts) -> NotificationRecord {
                NotificationRecord(notificationUUID: UUID(), bundleID: "com.ledger.notified", notificationType: type,
                                   subtype: nil, environment: .production, signedDate: Date(), facts: facts,
                                   requestID: nil)
            }
            let renewal = notification("DID_RENEW", Self.facts("s2") {
                $0.originalTransactionId = "s1"; $0.purchaseDate = month; $0.expiresDate = month.addingTimeInterval(30 * 86_400)
            })
            let recorded = try await database.ledger.recordNotification(renewal)
            #expect(recorded.created && recorded.outcome == .recorded)
            let repeated = try await database.ledger.recordNotification(renewal)
            #expect(!repeated.created && repeated.outcome == nil)
            let (renewed, _) = try #require(try await database.ledger.find("com.ledger.notified", transactionID: "s2",
                                                                          environment: .production))
            #expect(renewed.accountToken == Self.alice && renewed.originalTransactionId == "s1")
            let refund = notification("REFUND", Self.facts("s1") { $0.revocationDate = month; $0.revocationReason = 1 })
            #expect(try await database.ledger.recordNotification(refund).outcome == .updated)
            let (refunded, sources) = try #require(try await database.ledger.find("com.ledger.notified", transactionID: "s1",
                                                                                 environment: nil))
            #expect(refunded.isRevoked && refunded.revocationReason == 1 && refunded.version == 2 && sources.count == 2)
            let events = try await StoreFixtures.values("""
                SELECT kind::text || ':' || coalesce(actor_role::text, '-') || ':' || actor_name FROM history_events
                WHERE app = 'com.ledger.notified' AND kind::text LIKE 'transaction_%' ORDER BY sequence
                """, as: String.self, in: database)
            #expect(events == ["transaction_recorded:client:client of com.ledger.notified",
                               "transaction_recorded:-:App Store", "transaction_updated:-:App Store"])
            #expect(try await database.history.verify(chain: "com.ledger.notified").verified)
        }
    }

    @Test("ledger_changes lists what migration 0013's version listed, for a new row and for a changed one")
    func changesKeepTheirList() async throws {
        // 0013's definition under another name is the reference: 0031 made it one expression without a query.
        let reference = try StoreFixtures.function("ledger_changes", ofMigration: 13, renamedTo: "reference_ledger_changes")
            .replacingOccurrences(of: "CREATE FUNCTION", with: "CREATE OR REPLACE FUNCTION")
        // Rows with every field and with the optional ones missing; instants that differ within a millisecond,
        // which the events write alike.
        let rows = [
            #"{"transaction_id": "1", "environment": "Production", "original_transaction_id": "1", "quantity": 1, "#
                + #""purchase_date": "2026-01-01T00:00:00.123Z", "price": 990, "currency": "USD", "#
                + #""apple_type": "Consumable", "catalog_mismatch": false, "account_token": ""}"#,
            #"{"transaction_id": "1", "environment": "Sandbox", "original_transaction_id": "0", "quantity": 2, "#
                + #""purchase_date": "2026-01-01T00:00:00.1234Z", "expires_date": "2026-02-01T00:00:00Z", "#
                + #""revocation_date": "2026-01-15T10:00:00.5Z", "revocation_reason": 1, "price": 1990, "#
                + #""currency": "USD", "storefront": "USA", "apple_type": "Auto-Renewable Subscription", "#
                + #""catalog_mismatch": true, "account_token": "\#(Self.alice)"}"#,
            #"{"transaction_id": "2", "environment": "Xcode", "original_transaction_id": "2", "quantity": 0, "#
                + #""purchase_date": "2026-01-01T00:00:00.124Z", "storefront": "FRA", "apple_type": "Non-Consumable", "#
                + #""catalog_mismatch": false, "account_token": "\#(Self.bob)"}"#,
            #"{"transaction_id": "3", "environment": "Production", "original_transaction_id": "3", "quantity": 1, "#
                + #""purchase_date": "2026-01-01T00:00:00Z", "expires_date": "2026-02-01T00:00:00.001Z", "price": 0, "#
                + #""currency": "EUR", "apple_type": "Consumable", "catalog_mismatch": false, "#
                + #""account_token": "\#(Self.alice)"}"#,
        ]
        let url = try await TestDatabase.forSuite(Self.suite)
        try await TestDatabase.withDatabase(url) { database in
            try await StoreFixtures.run(reference, in: database)
            let compared = try await StoreFixtures.values("""
                WITH row AS (
                    SELECT jsonb_populate_record(NULL::ledger_transactions, r) AS r
                    FROM jsonb_array_elements('[\(rows.joined(separator: ", "))]'::jsonb) AS x(r)),
                pair AS (
                    SELECT NULL::ledger_transactions AS before, after.r AS after FROM row AS after
                    UNION ALL
                    SELECT before.r, after.r FROM row AS before, row AS after)
                SELECT ledger_changes(before, after)::text || ' | ' || reference_ledger_changes(before, after)::text
                FROM pair
                """, as: String.self, in: database)
            #expect(compared.count == rows.count * (rows.count + 1))
            for line in compared {
                let halves = line.components(separatedBy: " | ")
                #expect(halves.count == 2 && halves[0] == halves[1], "\(line)")
            }
            // The reference's list is not empty for a new row, nor for two different rows.
            #expect(compared.filter { $0.hasPrefix("[] ") }.count == rows.count)
        }
    }

    @Test("the database's merge and PurchaseCore's agree, source after source")
    func mergeRulesAgree() async throws {
        let url = try await TestDatabase.forSuite(Self.suite)
        try await TestDatabase.withDatabase(url) { database in
            let key = try await Self.world(database, "com.ledger.rules")
            let later = Self.day.addingTimeInterval(86_400)
            let sources: [(String, TransactionFacts)] = [
                ("", Self.facts("x") { $0.appleType = nil; $0.applePurchaseType = nil; $0.price = nil; $0.currency = nil }),
                (Self.alice, Self.facts("x") { $0.expiresDate = later; $0.storefront = "USA" }),
                (Self.bob, Self.facts("x") { $0.expiresDate = Self.day; $0.appAccountToken = Self.bob }),
                ("", Self.facts("x") { $0.revocationDate = later; $0.revocationReason = 0; $0.appleType = "Non-Consumable"
                    $0.applePurchaseType = .nonConsumable }),
                ("", Self.facts("x") { $0.refundReversed = true }),
                (Self.bob, Self.facts("x") { $0.quantity = 7 }),
            ]
            var expected: LedgerTransaction?
            for (index, (account, facts)) in sources.enumerated() {
                if account.isEmpty {
                    _ = try await database.ledger.recordNotification(NotificationRecord(
                        notificationUUID: UUID(), bundleID: "com.ledger.rules", notificationType: "TEST", subtype: nil,
                        environment: .production, signedDate: Date(), facts: facts, requestID: nil))
                } else {
                    _ = try await database.submissions.recordSigned(Self.signed(
                        "com.ledger.rules", key, account: account, jws: "p\(index)", facts: facts))
                }
                expected = expected.map { $0.merging(facts, account: account, at: later).0 }
                    ?? LedgerTransaction.recording(facts, in: "com.ledger.rules", account: account, inheritedAccount: nil,
                                                   catalogType: .consumable, at: later)
                let (stored, _) = try #require(try await database.ledger.find("com.ledger.rules", transactionID: "x",
                                                                             environment: .production))
                var comparable = try #require(expected)
                comparable.createdAt = stored.createdAt
                comparable.updatedAt = stored.updatedAt
                #expect(stored == comparable, "after source \(index)")
            }
        }
    }
}
