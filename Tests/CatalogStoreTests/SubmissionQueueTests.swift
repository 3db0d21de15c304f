import CatalogCore
import CatalogStore
import CatalogTestSupport
import Foundation
import PostgresNIO
import PurchaseCore
import Testing

/// The verification queue's statements on real PostgreSQL: leases (due work only, `SKIP LOCKED`, expiry), outcomes
/// recorded only by the lease that holds them, batched, leases given back, the next due time. The queue is the whole database's, so each test has a database of its own.
@Suite("Submission queue")
struct SubmissionQueueTests {
    static let alice = LedgerWriteTests.alice

    /// `count` receipts queued for `bundleID` (a new app with a client key), their submission ids in order.
    static func queued(_ database: Database, _ bundleID: String, count: Int = 1) async throws -> [UUID] {
        let key = try await LedgerWriteTests.world(database, bundleID)
        var ids: [UUID] = []
        for index in 0..<count {
            let intake = try await database.submissions.queueReceipt(.init(
                bundleID: bundleID, keyID: key.0, accountToken: alice, receipt: "UkVDRUlQVA\(index)=="))
            ids.append(intake.submission.id)
        }
        return ids
    }

    static func status(_ id: UUID, in database: Database) async throws -> (String, Int, Bool, Bool) {
        let rows = try await database.client.query("""
            SELECT status::text, attempts, next_attempt_at IS NOT NULL, lease_expires_at IS NOT NULL
            FROM purchase_submissions WHERE id = \(id)
            """).collect()
        return try #require(try rows.first?.decode((String, Int, Bool, Bool).self))
    }

    static func receiptStored(_ id: UUID, in database: Database) async throws -> Bool {
        try await LedgerWriteTests.count("SELECT count(*)::int FROM submission_receipts WHERE submission_id = '\(id)'",
                                         in: database) == 1
    }

    @Test("a lease takes what is due, once: verifying, attempts + 1, with its receipt")
    func leaseDue() async throws {
        let url = try await TestDatabase.forSuite("queue_lease_due")
        try await TestDatabase.withDatabase(url) { database in
            let ids = try await Self.queued(database, "com.queue.due", count: 3)
            try await StoreFixtures.run("""
                UPDATE purchase_submissions SET status = 'retrying', next_attempt_at = now() + interval '1 hour'
                WHERE id = '\(ids[2])'
                """, in: database)
            let leases = try await database.queue.lease(10, for: .seconds(30))
            #expect(Set(leases.map(\.submissionID)) == Set(ids.prefix(2)))
            for lease in leases {
                #expect(lease.attempts == 1 && lease.malformedAnswers == 0 && lease.bundleID == "com.queue.due")
                #expect(lease.receipt?.base64.hasPrefix("UkVDRUlQVA") == true)
                // Printing a lease names the submission, never the receipt.
                #expect(!"\(lease)".contains("UkVD") && "\(lease)".contains("\(lease.submissionID)"))
                let (status, attempts, due, leased) = try await Self.status(lease.submissionID, in: database)
                #expect(status == "verifying" && attempts == 1 && !due && leased)
            }
            // Held, and the third not due: nothing more to lease.
            #expect(try await database.queue.lease(10, for: .seconds(30)).isEmpty)
            #expect(try await database.queue.lease(0, for: .seconds(30)).isEmpty)
        }
    }

    @Test("concurrent leases never hand out a submission twice (SKIP LOCKED), and each limit is kept")
    func concurrentLeases() async throws {
        try await StoreFixtures.withPool("queue_concurrent", size: 8, maxWaiting: 100) { database, _, _ in
            let ids = try await Self.queued(database, "com.queue.concurrent", count: 200)
            let taken = try await withThrowingTaskGroup(of: [UUID].self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        var mine: [UUID] = []
                        while true {
                            let leases = try await database.queue.lease(7, for: .seconds(30))
                            #expect(leases.count <= 7)
                            if leases.isEmpty { return mine }
                            mine += leases.map(\.submissionID)
                        }
                    }
                }
                var all: [UUID] = []
                for try await mine in group { all += mine }
                return all
            }
            #expect(taken.count == 200 && Set(taken) == Set(ids))
        }
    }

    @Test("an expired lease is due again; the outcome of the lease it replaced is not recorded, the new one's is")
    func expiredLease() async throws {
        let url = try await TestDatabase.forSuite("queue_expired")
        try await TestDatabase.withDatabase(url) { database in
            let id = try #require(try await Self.queued(database, "com.queue.expired").first)
            let first = try #require(try await database.queue.lease(1, for: .seconds(2)).first)
            #expect(try await database.queue.lease(1, for: .seconds(30)).isEmpty)
            try await Task.sleep(for: .milliseconds(2_100))
            let second = try #require(try await database.queue.lease(1, for: .seconds(30)).first)
            #expect(second.submissionID == id && second.attempts == 2)
            // The first worker comes back with an answer: its lease is gone, so nothing is recorded.
            let verified = SubmissionQueue.Outcome(
                submissionID: id, attempts: first.attempts, status: .verified, environment: .sandbox, appleStatus: 0,
                transactions: [LedgerWriteTests.facts("e1") { $0.environment = .sandbox }])
            #expect(try await !database.queue.record(verified))
            #expect(try await LedgerWriteTests.count(
                "SELECT count(*)::int FROM ledger_transactions WHERE app = 'com.queue.expired'", in: database) == 0)
            var current = verified
            current.attempts = second.attempts
            #expect(try await database.queue.record(current))
            #expect(try await !database.queue.record(current))
            let submission = try #require(try await database.submissions.find("com.queue.expired", id: id))
            #expect(submission.status == .verified && submission.attempts == 2 && submission.environment == .sandbox)
            #expect(submission.transactions.map(\.transaction.transactionId) == ["e1"])
            #expect(try await !Self.receiptStored(id, in: database))
            #expect(try await database.history.verify(chain: "com.queue.expired").verified)
        }
    }

    @Test("outcomes of each kind recorded together: verified, invalid, retrying (21002 counted), failed")
    func outcomesTogether() async throws {
        try await StoreFixtures.withPool("queue_outcomes", size: 4, maxWaiting: 100) { pooled, _, _ in
            let database = Database(client: pooled.client, logger: pooled.logger, pool: pooled.pool, batching: true)
            let ids = try await Self.queued(database, "com.queue.outcomes", count: 4)
            let leases = try await database.queue.lease(4, for: .seconds(30))
            let lease = Dictionary(uniqueKeysWithValues: leases.map { ($0.submissionID, $0) })
            let due = Date().addingTimeInterval(60)
            let outcomes = [
                SubmissionQueue.Outcome(
                    submissionID: ids[0], attempts: lease[ids[0]]!.attempts, status: .verified, environment: .production,
                    appleStatus: 0, problems: ["Apple's answer had 1 unreadable transaction."],
                    transactions: [LedgerWriteTests.facts("o1"), LedgerWriteTests.facts("o2")]),
                SubmissionQueue.Outcome(lease[ids[1]]!, step: .invalid(.appleStatus(.notAuthentic))),
                SubmissionQueue.Outcome(lease[ids[2]]!, step: .retry(at: due, because: .malformedReceiptData)),
                SubmissionQueue.Outcome(lease[ids[3]]!, step: .failed(.timedOut)),
            ]
            let recorded = try await withThrowingTaskGroup(of: Bool.self) { group in
                for outcome in outcomes { group.addTask { try await database.queue.record(outcome) } }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(recorded == [true, true, true, true])

            let verified = try #require(try await database.submissions.find("com.queue.outcomes", id: ids[0]))
            #expect(verified.status == .verified && verified.finishedAt != nil && verified.appleStatus == 0)
            #expect(verified.transactions.count == 2 && verified.transactions.allSatisfy(\.credited))
            #expect(verified.problems == ["Apple's answer had 1 unreadable transaction."])

            let invalid = try #require(try await database.submissions.find("com.queue.outcomes", id: ids[1]))
            #expect(invalid.status == .invalid && invalid.appleStatus == 21003 && invalid.finishedAt != nil)
            #expect(invalid.problems == ["The App Store answered 21003: The receipt could not be authenticated."])
            #expect(try await !Self.receiptStored(ids[1], in: database))

            let retrying = try #require(try await database.submissions.find("com.queue.outcomes", id: ids[2]))
            #expect(retrying.status == .retrying && retrying.appleStatus == 21002 && retrying.finishedAt == nil)
            #expect(abs((retrying.nextAttemptAt ?? .distantPast).timeIntervalSince(due)) < 0.01)
            #expect(retrying.leaseExpiresAt == nil)
            #expect(try await Self.receiptStored(ids[2], in: database))

            let failed = try #require(try await database.submissions.find("com.queue.outcomes", id: ids[3]))
            #expect(failed.status == .failed && failed.finishedAt != nil && failed.nextAttemptAt == nil)
            #expect(failed.problems.first == "The App Store did not answer in time." && failed.problems.count == 2)
            // Kept for an operator's retry.
            #expect(try await Self.receiptStored(ids[3], in: database))

            // The 21002 is counted for the next attempt's rule.
            try await StoreFixtures.run(
                "UPDATE purchase_submissions SET next_attempt_at = now() WHERE id = '\(ids[2])'", in: database)
            let again = try #require(try await database.queue.lease(4, for: .seconds(30)).first)
            #expect(again.submissionID == ids[2] && again.attempts == 2 && again.malformedAnswers == 1)
            #expect(try await database.history.verify(chain: "com.queue.outcomes").verified)
        }
    }

    @Test("an outcome finds its submission by id, not by reading every lease, when the statistics say few are leased")
    func outcomesFoundByID() async throws {
        let url = try await TestDatabase.forSuite("queue_outcomes_by_id")
        let bundleID = "com.queue.byid"
        let leased = 2_000
        try await TestDatabase.withDatabase(url) { database in
            let key = try await LedgerWriteTests.world(database, bundleID)
            try await StoreFixtures.run("""
                WITH made AS (
                    INSERT INTO purchase_submissions (app, key_id, kind, proof_sha256, status, next_attempt_at)
                    SELECT '\(bundleID)', '\(key.0)', 'receipt', sha256(n::text::bytea), 'queued', now()
                    FROM generate_series(1, \(leased)) AS n
                    RETURNING id)
                INSERT INTO submission_receipts (submission_id, receipt) SELECT id, 'UkVDRUlQVA==' FROM made
                """, in: database)
            // The statistics of a quiet moment (none leased), then the worker leases them all.
            try await StoreFixtures.run("ANALYZE purchase_submissions", in: database)
            let leases = try await database.queue.lease(leased, for: .seconds(60))
            #expect(leases.count == leased)
            let items = leases.prefix(4).enumerated().map { index, lease in
                #"{"submissionId": "\#(lease.submissionID)", "attempts": \#(lease.attempts), "#
                    + (index < 2 ? #""status": "verified", "environment": "Production", "appleStatus": 0, "transactions": []}"#
                              : #""status": "retrying", "nextAttemptAt": "2030-01-01T00:00:00Z"}"#)
            }
            // One transaction, so that the function's reads are counted for this backend before they are reported.
            let (recorded, read) = try await database.client.withConnection { connection in
                _ = try await connection.query("BEGIN", logger: connection.logger).collect()
                let recorded = try await connection.query(
                    "SELECT count(*)::int FROM receipt_queue_record(\("[" + items.joined(separator: ",") + "]")::jsonb)",
                    logger: connection.logger
                ).collect().first?.decode(Int.self)
                let read = try await connection.query(
                    "SELECT pg_stat_get_xact_tuples_returned('purchase_submissions_leases'::regclass)::int",
                    logger: connection.logger
                ).collect().first?.decode(Int.self)
                _ = try await connection.query("COMMIT", logger: connection.logger).collect()
                return (recorded, read)
            }
            // The leases' own query still reads the index, by the end of the lease.
            let plan = try await database.client.withConnection { connection in
                _ = try await connection.query("SET enable_seqscan = off", logger: connection.logger).collect()
                return try await connection.query("""
                    EXPLAIN SELECT s.id FROM purchase_submissions s
                    WHERE s.status = 'verifying' AND s.lease_expires_at <= now() ORDER BY s.lease_expires_at LIMIT 10
                    """, logger: connection.logger).collect().map { try $0.decode(String.self) }.joined(separator: "\n")
            }
            #expect(plan.contains("purchase_submissions_leases"), "\(plan)")
            #expect(recorded == 4)
            // Through the partial index of leases, each outcome read all 2,000 of them.
            #expect(read == 0, "entries read from the index of leases: \(read ?? -1)")
            #expect(try await Self.status(leases[0].submissionID, in: database).0 == "verified")
            #expect(try await Self.status(leases[3].submissionID, in: database).0 == "retrying")
        }
    }

    @Test("leases given back are due now, for any worker; a lease no longer held is not given back")
    func release() async throws {
        let url = try await TestDatabase.forSuite("queue_release")
        try await TestDatabase.withDatabase(url) { database in
            let ids = try await Self.queued(database, "com.queue.release", count: 2)
            let leases = try await database.queue.lease(2, for: .seconds(30))
            #expect(leases.count == 2)
            // The second's lease was taken over meanwhile (attempt 2).
            try await StoreFixtures.run(
                "UPDATE purchase_submissions SET attempts = 2 WHERE id = '\(ids[1])'", in: database)
            #expect(try await database.queue.release(leases) == 1)
            let (status, attempts, due, leased) = try await Self.status(ids[0], in: database)
            #expect(status == "retrying" && attempts == 1 && due && !leased)
            #expect(try await Self.status(ids[1], in: database).0 == "verifying")
            let again = try #require(try await database.queue.lease(2, for: .seconds(30)).first)
            #expect(again.submissionID == ids[0] && again.attempts == 2)
        }
    }

    @Test("the next due time: none when nothing waits, a retry's time, a lease's end, zero or less when due")
    func nextDue() async throws {
        let url = try await TestDatabase.forSuite("queue_next_due")
        try await TestDatabase.withDatabase(url) { database in
            #expect(try await database.queue.untilNextDue() == nil)
            let id = try #require(try await Self.queued(database, "com.queue.next").first)
            #expect(try #require(try await database.queue.untilNextDue()) <= .zero)
            _ = try await database.queue.lease(1, for: .seconds(40))
            let leaseEnd = try #require(try await database.queue.untilNextDue())
            // Bounds wide enough for a machine that pauses the test for seconds between two statements.
            #expect(leaseEnd > .seconds(30) && leaseEnd <= .seconds(40))
            try await StoreFixtures.run("""
                UPDATE purchase_submissions SET status = 'retrying', lease_expires_at = NULL,
                    next_attempt_at = now() + interval '60 seconds' WHERE id = '\(id)'
                """, in: database)
            let retry = try #require(try await database.queue.untilNextDue())
            #expect(retry > .seconds(50) && retry <= .seconds(60))
        }
    }
}
