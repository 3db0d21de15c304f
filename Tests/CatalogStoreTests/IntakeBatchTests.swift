import CatalogCore
@testable import CatalogStore
import CatalogTestSupport
import Foundation
import PostgresNIO
import PurchaseCore
import Testing

/// One batch of intake, written by one statement (sql/0023's purchases_record_signed and purchases_queue_receipts):
/// what concurrent requests may put together in a batch, put there on purpose.
@Suite("Intake in one batch")
struct IntakeBatchTests {
    typealias Ledger = LedgerWriteTests

    @Test("a repeated proof, a transaction two accounts bring, a known one and a new one: as if one by one")
    func mixedBatch() async throws {
        let url = try await TestDatabase.forSuite(Ledger.suite)
        try await TestDatabase.withDatabase(url) { database in
            let app = "com.ledger.batch"
            let key = try await Ledger.world(database, app)
            // t2 is in the ledger already, credited to bob.
            _ = try await database.submissions.recordSigned(
                Ledger.signed(app, key, account: Ledger.bob, jws: "jws-0", facts: Ledger.facts("t2")))
            let batch = [
                Ledger.signed(app, key, jws: "jws-3", facts: Ledger.facts("t3")),
                Ledger.signed(app, key, account: Ledger.bob, jws: "jws-1b", facts: Ledger.facts("t1")),
                Ledger.signed(app, key, jws: "jws-1", facts: Ledger.facts("t1")),
                Ledger.signed(app, key, jws: "jws-2", facts: Ledger.facts("t2")),
                Ledger.signed(app, key, jws: "jws-1", facts: Ledger.facts("t1")),
            ]
            let answers = try await PurchaseSubmissionRepository.recordSigned(batch, on: database).map { try #require($0) }
            // The same proof for the same account is one submission, in a batch as anywhere: made by one of the two.
            #expect(answers[0].created && answers[1].created && answers[3].created)
            #expect(answers[2].created != answers[4].created && answers[4].submission.id == answers[2].submission.id)
            #expect(Set(answers.map(\.submission.id)).count == 4)
            func only(_ index: Int) throws -> SubmittedTransaction {
                let transactions = answers[index].submission.transactions
                try #require(transactions.count == 1)
                return transactions[0]
            }
            // t1 is recorded by the first item in the batch's order (alice's, t1 before bob), credited to alice.
            let (alice1, bob1, alice2, alice3) = (try only(2), try only(1), try only(3), try only(0))
            #expect(alice1.credited && !alice1.alreadyRecorded && alice1.transaction.accountToken == Ledger.alice)
            #expect(!bob1.credited && bob1.alreadyRecorded && bob1.transaction.accountToken == Ledger.alice)
            #expect(!alice2.credited && alice2.alreadyRecorded && alice2.transaction.accountToken == Ledger.bob)
            #expect(alice3.credited && !alice3.alreadyRecorded && alice3.transaction.transactionId == "t3")

            let rows = try await StoreFixtures.values("""
                SELECT transaction_id || ' ' || account_token || ' v' || version
                    || ' sources ' || (SELECT count(*) FROM ledger_sources s
                                       WHERE s.app = t.app AND s.transaction_id = t.transaction_id)
                FROM ledger_transactions t WHERE app = '\(app)' ORDER BY transaction_id
                """, as: String.self, in: database)
            #expect(rows == ["t1 \(Ledger.alice) v1 sources 2", "t2 \(Ledger.bob) v1 sources 2",
                             "t3 \(Ledger.alice) v1 sources 1"])
            // The batch's events in the order of its items (sorted: t1 alice, t1 bob, t2 alice, t3 alice), each
            // item's transaction event before its signals; the chain verifies.
            let events = try await StoreFixtures.values("""
                SELECT kind::text || ' ' || (SELECT c ->> 'new' FROM jsonb_array_elements(changes) AS c
                                             WHERE c ->> 'field' = 'transactionId')
                       || coalesce(' ' || (SELECT c ->> 'new' FROM jsonb_array_elements(changes) AS c
                                           WHERE c ->> 'field' = 'otherAccountToken'), '')
                FROM history_events WHERE app = '\(app)' AND kind IN ('transaction_recorded', 'signal_raised')
                ORDER BY sequence
                """, as: String.self, in: database)
            #expect(events == ["transaction_recorded t2", "transaction_recorded t1", "signal_raised t1 \(Ledger.bob)",
                               "signal_raised t2 \(Ledger.alice)", "transaction_recorded t3"])
            #expect(try await database.history.verify(chain: app).verified)
        }
    }

    @Test("a batch of new transactions is answered from what the server holds, as the stored submissions say")
    func newTransactionsAnswered() async throws {
        let url = try await TestDatabase.forSuite(Ledger.suite)
        try await TestDatabase.withDatabase(url) { database in
            let app = "com.ledger.batchnew"
            let key = try await Ledger.world(database, app)
            let later = Ledger.day.addingTimeInterval(86_400 * 30 + 0.123)
            let batch = [
                Ledger.signed(app, key, jws: "jws-21", facts: Ledger.facts("t21")),
                // Not in the catalog.
                Ledger.signed(app, key, jws: "jws-22", facts: Ledger.facts("t22", product: "gems")),
                // Apple's type is not the catalog's.
                Ledger.signed(app, key, jws: "jws-23", facts: Ledger.facts("t23") {
                    $0.appleType = "Auto-Renewable Subscription"
                    $0.applePurchaseType = .autoRenewableSubscription
                }),
                // No account: credited to Apple's appAccountToken, which is not the submitting account.
                Ledger.signed(app, key, account: "", jws: "jws-24", facts: Ledger.facts("t24") {
                    $0.appAccountToken = Ledger.bob
                }),
                // Bob submits a transaction of alice's.
                Ledger.signed(app, key, account: Ledger.bob, jws: "jws-25", facts: Ledger.facts("t25") {
                    $0.appAccountToken = Ledger.alice
                }),
                // Every optional fact, refunded.
                Ledger.signed(app, key, jws: "jws-26", facts: Ledger.facts("t26") {
                    $0.originalTransactionId = "t20"
                    $0.quantity = 3
                    $0.originalPurchaseDate = Ledger.day.addingTimeInterval(-0.5)
                    $0.expiresDate = later
                    $0.revocationDate = later
                    $0.revocationReason = 1
                    $0.storefront = "FRA"
                    $0.appTransactionId = "704289572311679"
                    $0.inAppOwnershipType = "PURCHASED"
                    $0.webOrderLineItemId = "2000000000260"
                    $0.transactionReason = "RENEWAL"
                    $0.price = nil
                    $0.currency = nil
                }),
                // A refund and its reversal: not revoked.
                Ledger.signed(app, key, jws: "jws-27", facts: Ledger.facts("t27") {
                    $0.revocationDate = later
                    $0.revocationReason = 0
                    $0.refundReversed = true
                }),
            ]
            let answers = try await PurchaseSubmissionRepository.recordSigned(batch, on: database).map { try #require($0) }
            #expect(answers.map { $0.submission.transactions.first?.transaction.transactionId }
                == ["t21", "t22", "t23", "t24", "t25", "t26", "t27"])
            #expect(answers.map { $0.submission.transactions.first?.credited } == [true, true, true, false, false, true, true])
            for answer in answers {
                #expect(answer.created)
                let stored = try #require(try await database.submissions.find(app, id: answer.submission.id))
                #expect(answer.submission == stored)
            }
            #expect(try await database.history.verify(chain: app).verified)

            // Such a batch is answered without the stored submissions (sql/0037); one with a proof seen before
            // is answered with them, the new item too.
            func submissionColumns(_ batch: [PurchaseSubmissionRepository.SignedPurchase]) async throws -> [Bool] {
                let items = JSONObjectWriter.array(batch.map(PurchaseSubmissionRepository.signedItem))
                return try await database.execute(PurchaseSubmissionRepository.RecordSigned(items: items))
                    .map { try $0.decode((Int, Bool, String?).self).2 != nil }
            }
            #expect(try await submissionColumns([Ledger.signed(app, key, jws: "jws-28", facts: Ledger.facts("t28"))])
                == [false])
            #expect(try await submissionColumns([Ledger.signed(app, key, jws: "jws-29", facts: Ledger.facts("t29")),
                                                 Ledger.signed(app, key, jws: "jws-21", facts: Ledger.facts("t21"))])
                == [true, true])
        }
    }

    @Test("a renewal brought with no account is credited to its original's account, in the same batch too")
    func renewalInBatch() async throws {
        let url = try await TestDatabase.forSuite(Ledger.suite)
        try await TestDatabase.withDatabase(url) { database in
            let app = "com.ledger.batchrenewal"
            let key = try await Ledger.world(database, app)
            let batch = [
                Ledger.signed(app, key, account: "", jws: "jws-11", facts: Ledger.facts("t11") { $0.originalTransactionId = "t10" }),
                Ledger.signed(app, key, jws: "jws-10", facts: Ledger.facts("t10") { $0.originalTransactionId = "t10" }),
            ]
            let answers = try await PurchaseSubmissionRepository.recordSigned(batch, on: database).map { try #require($0) }
            #expect(answers.allSatisfy { $0.created })
            let credited = try await StoreFixtures.values("""
                SELECT transaction_id || ' ' || account_token FROM ledger_transactions WHERE app = '\(app)'
                ORDER BY transaction_id
                """, as: String.self, in: database)
            #expect(credited == ["t10 \(Ledger.alice)", "t11 \(Ledger.alice)"])
            #expect(try await database.history.verify(chain: app).verified)
        }
    }

    @Test("receipts: a repeated receipt is one submission, a known one answers as it stands, each new one is stored")
    func receiptBatch() async throws {
        let url = try await TestDatabase.forSuite(Ledger.suite)
        try await TestDatabase.withDatabase(url) { database in
            let app = "com.ledger.receiptbatch"
            let key = try await Ledger.world(database, app)
            func receipt(_ text: String, _ account: String = Ledger.alice) -> PurchaseSubmissionRepository.QueuedReceipt {
                .init(bundleID: app, keyID: key.0, accountToken: account, receipt: text)
            }
            let known = try await database.submissions.queueReceipt(receipt("S05PV04="))
            let batch = [receipt("TkVXMQ=="), receipt("S05PV04="), receipt("TkVX\nMQ=="), receipt("TkVXMQ==", Ledger.bob)]
            let answers = try await PurchaseSubmissionRepository.queueReceipts(batch, on: database)
                .map { try #require($0) }
            // Whitespace does not make another receipt: items 0 and 2 are one submission, made by one of them.
            #expect(answers[0].created != answers[2].created && answers[0].submission.id == answers[2].submission.id)
            #expect(!answers[1].created && answers[1].submission.id == known.submission.id)
            #expect(answers[3].created && answers[3].submission.id != answers[0].submission.id)
            #expect(answers.allSatisfy { $0.submission.status == .queued && $0.submission.transactions.isEmpty })
            let stored = try await StoreFixtures.values("""
                SELECT s.account_token || ' ' || r.receipt FROM purchase_submissions s
                JOIN submission_receipts r ON r.submission_id = s.id
                WHERE s.app = '\(app)' ORDER BY s.account_token, r.receipt
                """, as: String.self, in: database)
            #expect(stored == ["\(Ledger.alice) S05PV04=", "\(Ledger.alice) TkVXMQ==", "\(Ledger.bob) TkVXMQ=="])
        }
    }

    @Test("verified receipts: each transaction recorded by its first appearance, events and sources as if one by one")
    func verifiedBatch() async throws {
        let url = try await TestDatabase.forSuite("outcome_batches")
        try await TestDatabase.withDatabase(url) { database in
            let (alice, bob) = (Ledger.alice, Ledger.bob)
            func renewal(_ id: String) -> TransactionFacts { Ledger.facts(id) { $0.originalTransactionId = "r10" } }
            // Each receipt's account and transactions. k2 is in the ledger already, credited to bob; m1 and m3 come
            // first with no account; r11 renews r10, which another receipt of the batch brings; the last receipt's
            // lease is no longer its attempt's.
            let receipts: [(String, [TransactionFacts])] = [
                (alice, [Ledger.facts("k1"), Ledger.facts("k2"), Ledger.facts("k3")]),
                (bob, [Ledger.facts("k0"), Ledger.facts("k1")]),
                ("", [Ledger.facts("m1"), Ledger.facts("m3")]),
                (bob, [Ledger.facts("m2"), Ledger.facts("m3")]),
                ("", [renewal("r11")]),
                (alice, [renewal("r10")]),
                (alice, [Ledger.facts("z1")]),
            ]
            func outcomes(_ app: String) async throws -> [SubmissionQueue.Outcome] {
                let key = try await Ledger.world(database, app)
                _ = try await database.submissions.recordSigned(
                    Ledger.signed(app, key, account: bob, jws: "jws-0", facts: Ledger.facts("k2")))
                var outcomes: [SubmissionQueue.Outcome] = []
                for (index, (account, transactions)) in receipts.enumerated() {
                    let id = try await database.submissions.queueReceipt(.init(
                        bundleID: app, keyID: key.0, accountToken: account, receipt: "UkVDRUlQVA\(index)==")).submission.id
                    outcomes.append(.init(submissionID: id, attempts: index == receipts.count - 1 ? 2 : 1,
                                          status: .verified, environment: .production, appleStatus: 0,
                                          transactions: transactions))
                }
                return outcomes
            }
            let (batched, alone) = (try await outcomes("com.outcomes.batch"), try await outcomes("com.outcomes.alone"))
            #expect(try await database.queue.lease(100, for: .seconds(60)).count == 2 * receipts.count)

            var marks: [String: Int] = [:]
            for app in ["com.outcomes.batch", "com.outcomes.alone"] {
                marks[app] = try await StoreFixtures.values(
                    "SELECT max(sequence)::int FROM history_events WHERE app = '\(app)'", as: Int.self, in: database)[0]
            }
            let batchAnswers = try await SubmissionQueue.record(batched, on: database)
            var aloneAnswers: [Bool?] = Array(repeating: nil, count: alone.count)
            for index in alone.indices.sorted(by: { alone[$0].ledgerKey < alone[$1].ledgerKey }) {
                aloneAnswers[index] = try await SubmissionQueue.record([alone[index]], on: database)[0]
            }
            #expect(batchAnswers == [true, true, true, true, true, true, false])
            #expect(aloneAnswers == batchAnswers)

            // The ledger, its sources and the history of each app, submissions named by their receipt's place.
            func written(_ app: String, _ outcomes: [SubmissionQueue.Outcome]) async throws -> [String] {
                let marks = marks
                func named(_ text: String) -> String {
                    outcomes.enumerated().reduce(text) { $0.replacingOccurrences(of: $1.element.submissionID.uuidString.lowercased(), with: "#\($1.offset)") }
                }
                let ledger = try await StoreFixtures.values("""
                    SELECT transaction_id || ' ' || account_token || ' v' || version FROM ledger_transactions
                    WHERE app = '\(app)' ORDER BY transaction_id
                    """, as: String.self, in: database)
                let sources = try await StoreFixtures.values("""
                    SELECT transaction_id || ' ' || source_id || ' ' || recorded FROM ledger_sources
                    WHERE app = '\(app)' AND source_id IN (SELECT id FROM purchase_submissions WHERE kind = 'receipt')
                    ORDER BY transaction_id, source_id
                    """, as: String.self, in: database)
                let events = try await StoreFixtures.values("""
                    SELECT kind::text || ' ' || (SELECT jsonb_agg(c.change ORDER BY c.at)::text
                                                 FROM jsonb_array_elements(changes) WITH ORDINALITY AS c(change, at)
                                                 WHERE c.change ->> 'field' <> 'signalId')
                    FROM history_events WHERE app = '\(app)' AND sequence > \(marks[app] ?? 0) ORDER BY sequence
                    """, as: String.self, in: database)
                // A signal's id is numbered across apps, so it is left out.
                return ledger + sources.map(named).sorted() + events.map(named)
            }
            let batchWritten = try await written("com.outcomes.batch", batched)
            let aloneWritten = try await written("com.outcomes.alone", alone)
            #expect(batchWritten == aloneWritten)
            #expect(Array(batchWritten.prefix(9)) == [
                "k0 \(bob) v1", "k1 \(bob) v1", "k2 \(bob) v1", "k3 \(alice) v1", "m1  v1", "m2 \(bob) v1",
                "m3 \(bob) v2", "r10 \(alice) v1", "r11 \(alice) v1"])
            #expect(batchWritten.filter { $0.hasPrefix("transaction_recorded") }.count == 8)
            #expect(batchWritten.filter { $0.hasPrefix("transaction_updated") }.count == 1)
            #expect(batchWritten.filter { $0.hasPrefix("signal_raised") }.count == 2)
            #expect(try await database.history.verify(chain: "com.outcomes.batch").verified)
        }
    }

    /// The planner takes a batch's items for 100 rows. Joined with purchase_submissions, it hashed the whole table
    /// for each batch while the table was small enough (up to about 20,000 rows), reading every submission each time.
    @Test("each batch finds its submissions by their keys, without reading the whole table")
    func batchesReadNoWholeTable() async throws {
        let url = try await TestDatabase.forSuite("batch_plans")
        try await TestDatabase.withDatabase(url) { database in
            let app = "com.batch.plans"
            let key = try await Ledger.world(database, app)
            // Enough finished submissions that reading them all costs the planner more than 100 lookups would.
            try await Self.fillSubmissions(app, keyID: key.0, in: database)
            try await StoreFixtures.run("ANALYZE purchase_submissions", in: database)
            /// `work`'s statements in one transaction, and how many times they read purchase_submissions whole.
            func wholeTableReads(_ work: @escaping @Sendable () async throws -> Void) async throws -> Int {
                try await database.client.withTransaction(logger: database.logger) { connection in
                    try await Database.$held.withValue(connection) { try await work() }
                    let rows = try await connection.query(
                        "SELECT pg_stat_get_xact_numscans('purchase_submissions'::regclass)::int", logger: database.logger)
                    var reads = 0
                    for try await count in rows.decode(Int.self) { reads = count }
                    return reads
                }
            }
            let signed = (0..<8).map { Ledger.signed(app, key, jws: "jws-\($0)", facts: Ledger.facts("p\($0)")) }
            let signedReads = try await wholeTableReads {
                _ = try await PurchaseSubmissionRepository.recordSigned(signed, on: database)
            }
            #expect(signedReads == 0)

            let receipts = (0..<8).map {
                PurchaseSubmissionRepository.QueuedReceipt(bundleID: app, keyID: key.0, accountToken: Ledger.alice,
                                                           receipt: "UExBTlM\($0)==")
            }
            let receiptReads = try await wholeTableReads {
                _ = try await PurchaseSubmissionRepository.queueReceipts(receipts, on: database)
            }
            #expect(receiptReads == 0)

            let leases = try await database.queue.lease(100, for: .seconds(60))
            try #require(leases.count == receipts.count)
            let outcomes = leases.enumerated().map { index, lease in
                index % 2 == 0
                    ? SubmissionQueue.Outcome(submissionID: lease.submissionID, attempts: lease.attempts, status: .verified,
                                              environment: .production, appleStatus: 0,
                                              transactions: [Ledger.facts("q\(index)")])
                    : SubmissionQueue.Outcome(submissionID: lease.submissionID, attempts: lease.attempts, status: .invalid,
                                              appleStatus: 21010, problems: ["not authorized"])
            }
            let outcomeReads = try await wholeTableReads { _ = try await SubmissionQueue.record(outcomes, on: database) }
            #expect(outcomeReads == 0)
            let ids = leases.map { "'\($0.submissionID.uuidString)'" }.joined(separator: ", ")
            #expect(try await Ledger.count("""
                SELECT count(*) FROM purchase_submissions WHERE id IN (\(ids)) AND status IN ('verified', 'invalid')
                """, in: database) == receipts.count)
        }
    }

    /// PostgreSQL plans a foreign key's check once per connection and keeps the plan until the table is analyzed
    /// again. Made while the referenced table was a page or two (as after a new deployment's first ANALYZE), the
    /// plan read the table whole, and went on doing so for every row written while the table grew.
    @Test("foreign keys are checked by the index, though their plans were made while the ledger was nearly empty")
    func keyChecksByIndex() async throws {
        let url = try await TestDatabase.forSuite("key_check_plans")
        try await TestDatabase.withDatabase(url) { database in
            let app = "com.key.checks"
            let key = try await Ledger.world(database, app)
            try await StoreFixtures.run("ANALYZE ledger_transactions, purchase_submissions", in: database)
            let receipts = { (batch: Int) in
                (0..<8).map {
                    PurchaseSubmissionRepository.QueuedReceipt(bundleID: app, keyID: key.0, accountToken: Ledger.alice,
                                                               receipt: "UExBTlM\(batch)x\($0)==")
                }
            }
            try await database.client.withConnection { connection in
                try await Database.$held.withValue(connection) {
                    // The checks' plans are made on this connection while both tables are a page or two.
                    _ = try await PurchaseSubmissionRepository.recordSigned(
                        (0..<8).map { Ledger.signed(app, key, jws: "early-\($0)", facts: Ledger.facts("e\($0)")) },
                        on: database)
                    _ = try await PurchaseSubmissionRepository.queueReceipts(receipts(1), on: database)
                    // Then both grow by thousands of rows, unanalyzed, as in the first minutes of a busy launch.
                    try await StoreFixtures.run("""
                        INSERT INTO ledger_transactions (app, environment, transaction_id, original_transaction_id,
                            product_id, apple_type, catalog_type, catalog_mismatch, quantity, purchase_date,
                            original_purchase_date, expires_date, revocation_date, revocation_reason, price, currency,
                            storefront, app_transaction_id, in_app_ownership_type, web_order_line_item_id,
                            transaction_reason, account_token)
                        SELECT n.* FROM generate_series(1, 5000) AS g
                        CROSS JOIN LATERAL ledger_new_row('\(app)', jsonb_build_object('environment', 'Production',
                            'transactionId', 'filler-' || g, 'productId', 'coins', 'purchaseDate', now()), '') AS n
                        """, in: database)
                    try await Self.fillSubmissions(app, keyID: key.0, in: database)
                    _ = try await PurchaseSubmissionRepository.queueReceipts(receipts(2), on: database)
                    let leases = try await database.queue.lease(100, for: .seconds(60))
                    try #require(leases.count == 16)
                    let outcomes = leases.enumerated().map { index, lease in
                        SubmissionQueue.Outcome(submissionID: lease.submissionID, attempts: lease.attempts,
                                                status: .verified, environment: .production, appleStatus: 0,
                                                transactions: [Ledger.facts("v\(index)")])
                    }

                    _ = try await connection.query("BEGIN", logger: database.logger).collect()
                    _ = try await PurchaseSubmissionRepository.recordSigned(
                        (0..<8).map { Ledger.signed(app, key, jws: "late-\($0)", facts: Ledger.facts("l\($0)")) },
                        on: database)
                    _ = try await PurchaseSubmissionRepository.queueReceipts(receipts(3), on: database)
                    _ = try await SubmissionQueue.record(outcomes, on: database)
                    let rows = try await connection.query("""
                        SELECT pg_stat_get_xact_numscans('ledger_transactions'::regclass)::int,
                               pg_stat_get_xact_numscans('purchase_submissions'::regclass)::int
                        """, logger: database.logger).collect()
                    _ = try await connection.query("COMMIT", logger: database.logger).collect()
                    let (ledgerReads, submissionReads) = try #require(rows.first).decode((Int, Int).self)
                    #expect(ledgerReads == 0, "ledger_transactions read whole \(ledgerReads) times")
                    #expect(submissionReads == 0, "purchase_submissions read whole \(submissionReads) times")
                }
            }
            #expect(try await Ledger.count("""
                SELECT count(*) FROM ledger_sources WHERE app = '\(app)' AND transaction_id !~ '^filler-'
                """, in: database) == 32)
        }
    }

    /// 5,000 finished submissions of `app`, none of them a test's own.
    static func fillSubmissions(_ app: String, keyID: UUID, in database: Database) async throws {
        try await StoreFixtures.run("""
            INSERT INTO purchase_submissions (app, key_id, kind, proof_sha256, status, finished_at)
            SELECT '\(app)', '\(keyID.uuidString)', 'receipt', sha256(convert_to('filler ' || n, 'UTF8')),
                   'invalid', now()
            FROM generate_series(1, 5000) AS n
            """, in: database)
    }
}
