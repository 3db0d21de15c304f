@testable import CatalogStore
import CatalogTestSupport
import Foundation
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
}
