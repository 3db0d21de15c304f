import CatalogCore
@testable import CatalogStore
import CatalogTestSupport
import Foundation
import PostgresNIO
import PurchaseCore
import Testing

/// Submissions and ledger rows, which the database's functions answer as JSON, read as PostgresNIO reads the same
/// rows column by column: every member named right, every value kept.
@Suite("Purchase rows read from JSON")
struct PurchaseRowReadingTests {
    static let suite = "purchase_row_reading"

    /// `date` to the microsecond, as PostgreSQL keeps it: the two readings may differ in a `Double`'s last bits.
    static func microseconds(_ date: Date?) -> Int64? {
        date.map { Int64(($0.timeIntervalSince1970 * 1_000_000).rounded()) }
    }

    static func comparable(_ transaction: LedgerTransaction) -> LedgerTransaction {
        var copy = transaction
        func micro(_ date: Date) -> Date { Date(timeIntervalSince1970: Double(microseconds(date)!) / 1_000_000) }
        copy.purchaseDate = micro(copy.purchaseDate)
        copy.originalPurchaseDate = copy.originalPurchaseDate.map(micro)
        copy.expiresDate = copy.expiresDate.map(micro)
        copy.revocationDate = copy.revocationDate.map(micro)
        copy.createdAt = micro(copy.createdAt)
        copy.updatedAt = micro(copy.updatedAt)
        return copy
    }

    /// The submission's columns, as PostgresNIO decodes them.
    static func expectColumns(of submission: PurchaseSubmission, in database: Database) async throws {
        let rows = try await database.execute("""
            SELECT id, app, key_id, account_token, kind::text, status::text, environment::text, attempts,
                   next_attempt_at, lease_expires_at, apple_status,
                   ARRAY(SELECT jsonb_array_elements_text(problems)), created_at, updated_at, finished_at
            FROM purchase_submissions WHERE id = \(submission.id)
            """)
        let row = try #require(rows.first)
        let (id, app, keyID, account, kind, status, environment, attempts, next, lease, apple, problems, created,
             updated, finished) = try row.decode((UUID, String, UUID, String, String, String, String?, Int, Date?,
                                                  Date?, Int?, [String], Date, Date, Date?).self)
        #expect(submission.id == id && submission.bundleID == app && submission.keyID == keyID)
        #expect(submission.accountToken == account && submission.kind.rawValue == kind)
        #expect(submission.status.rawValue == status && submission.environment?.rawValue == environment)
        #expect(submission.attempts == attempts && submission.appleStatus == apple && submission.problems == problems)
        #expect(microseconds(submission.nextAttemptAt) == microseconds(next))
        #expect(microseconds(submission.leaseExpiresAt) == microseconds(lease))
        #expect(microseconds(submission.createdAt) == microseconds(created))
        #expect(microseconds(submission.updatedAt) == microseconds(updated))
        #expect(microseconds(submission.finishedAt) == microseconds(finished))
    }

    @Test("a signed transaction's answer: its submission and ledger row, every optional value set, as their columns")
    func signedAnswer() async throws {
        let url = try await TestDatabase.forSuite(Self.suite)
        try await TestDatabase.withDatabase(url) { database in
            let bundleID = "com.rows.signed"
            let key = try await LedgerWriteTests.world(database, bundleID)
            let day = LedgerWriteTests.day
            let facts = LedgerWriteTests.facts("2000000042") {
                $0.originalTransactionId = "2000000040"
                $0.originalPurchaseDate = day.addingTimeInterval(-86_400.123)
                $0.expiresDate = day.addingTimeInterval(86_400.5)
                $0.revocationDate = day.addingTimeInterval(3_600.25)
                $0.revocationReason = 1
                $0.storefront = "FRA"
                $0.appTransactionId = "704289572311491234"
                $0.inAppOwnershipType = "PURCHASED"
                $0.webOrderLineItemId = "2000000000111222"
                $0.transactionReason = "PURCHASE"
                $0.price = 9_223_372_036_854_775_807
            }
            let intake = try await database.submissions.recordSigned(
                LedgerWriteTests.signed(bundleID, key, facts: facts))
            try await Self.expectColumns(of: intake.submission, in: database)
            let answered = try #require(intake.submission.transactions.first)
            let (stored, _) = try #require(try await database.ledger.find(bundleID, transactionID: "2000000042",
                                                                           environment: .production))
            #expect(Self.comparable(answered.transaction) == Self.comparable(stored))
            #expect(stored.webOrderLineItemId == "2000000000111222" && stored.revocationReason == 1)
            #expect(answered.credited && !answered.alreadyRecorded)
        }
    }

    @Test("a receipt's submission in every state's columns: retried with Apple's status, its problems and a lease")
    func receiptStates() async throws {
        let url = try await TestDatabase.forSuite(Self.suite)
        try await TestDatabase.withDatabase(url) { database in
            let bundleID = "com.rows.receipt"
            let key = try await LedgerWriteTests.world(database, bundleID)
            let queued = try await database.submissions.queueReceipt(.init(
                bundleID: bundleID, keyID: key.0, accountToken: "", receipt: "MIIT-receipt-bytes"))
            try await Self.expectColumns(of: queued.submission, in: database)
            #expect(queued.submission.environment == nil && queued.submission.transactions.isEmpty)
            _ = try await database.execute("""
                UPDATE purchase_submissions
                SET status = 'retrying', attempts = 3, apple_status = 21005, problems = '["one \\"quoted\\"", "two"]',
                    lease_expires_at = now() + interval '1 minute', next_attempt_at = now() + interval '5.5 seconds'
                WHERE id = \(queued.submission.id)
                """)
            let retried = try #require(try await database.submissions.find(bundleID, id: queued.submission.id))
            try await Self.expectColumns(of: retried, in: database)
            #expect(retried.status == .retrying && retried.appleStatus == 21005 && retried.problems.count == 2)
            #expect(retried.problems.first == #"one "quoted""#)
        }
    }
}
