import CatalogCore
import Foundation
import PostgresNIO
import PurchaseCore

/// The receipt verification queue, in PostgreSQL: the submissions of receipts due for an attempt, leased by the
/// workers of every server process, and the outcomes of their attempts.
///
/// A lease (`FOR UPDATE SKIP LOCKED`) makes a due submission `verifying` until `lease_expires_at` and grows its
/// `attempts`, which identify the lease from then on: an outcome is recorded only while the submission is still
/// verifying with those attempts, so a worker whose lease expired and was taken by another records nothing,
/// and nothing is credited twice. A lease that expires (its process was killed) is due again.
///
/// Waking the worker and the readers waiting for an outcome is the server's (its SubmissionSignals), not the
/// queue's.
public struct SubmissionQueue: Sendable {
    let database: Database

    /// A submission a worker holds, with what its attempt needs.
    public struct Lease: Sendable, Hashable, CustomStringConvertible {
        public let submissionID: UUID
        public let bundleID: String
        /// The submission's attempts with this one: the lease's identity, and the attempt's number.
        public let attempts: Int
        /// How many earlier attempts were answered 21002.
        public let malformedAnswers: Int
        /// When the receipt was submitted: its retry window starts there.
        public let submittedAt: Date
        /// The receipt; `nil` only if it is no longer stored.
        public let receipt: ReceiptData?

        public init(submissionID: UUID, bundleID: String, attempts: Int, malformedAnswers: Int, submittedAt: Date,
                    receipt: ReceiptData?) {
            self.submissionID = submissionID
            self.bundleID = bundleID
            self.attempts = attempts
            self.malformedAnswers = malformedAnswers
            self.submittedAt = submittedAt
            self.receipt = receipt
        }

        /// The submission and attempt, never the receipt.
        public var description: String { "submission \(submissionID) attempt \(attempts)" }
    }

    /// What one leased attempt came to, as the queue records it.
    public struct Outcome: Sendable, Hashable {
        public var submissionID: UUID
        /// The lease's attempts: recorded only if the submission is still leased by them.
        public var attempts: Int
        /// `verified`, `invalid`, `retrying` or `failed`.
        public var status: SubmissionStatus
        public var environment: AppStoreEnvironment?
        public var appleStatus: Int?
        /// Why it is invalid, retried or failed, or what was wrong in a verified answer: one sentence each.
        public var problems: [String]
        /// Whether this attempt was answered 21002.
        public var malformedAnswer: Bool
        /// When the next attempt is due (`retrying` only).
        public var nextAttemptAt: Date?
        /// The transactions to record (`verified` only).
        public var transactions: [TransactionFacts]

        public init(submissionID: UUID, attempts: Int, status: SubmissionStatus, environment: AppStoreEnvironment? = nil,
                    appleStatus: Int? = nil, problems: [String] = [], malformedAnswer: Bool = false,
                    nextAttemptAt: Date? = nil, transactions: [TransactionFacts] = []) {
            self.submissionID = submissionID
            self.attempts = attempts
            self.status = status
            self.environment = environment
            self.appleStatus = appleStatus
            self.problems = problems
            self.malformedAnswer = malformedAnswer
            self.nextAttemptAt = nextAttemptAt
            self.transactions = transactions
        }

        /// What `lease`'s attempt records after ``ReceiptSubmissionRule`` decided `step`.
        public init(_ lease: Lease, step: ReceiptSubmissionRule.Step) {
            self.init(submissionID: lease.submissionID, attempts: lease.attempts, status: step.status)
            switch step {
            case .verified(let receipt):
                let (facts, problems) = receipt.ledgerFacts()
                environment = receipt.environment
                appleStatus = receipt.status.code
                transactions = facts
                self.problems = problems
            case .invalid(let refusal):
                (appleStatus, problems, malformedAnswer) = Self.recorded(refusal)
            case .retry(let due, let reason):
                appleStatus = reason.appleStatus?.code
                problems = [reason.description]
                malformedAnswer = reason == .malformedReceiptData
                nextAttemptAt = due
            case .failed(let reason):
                appleStatus = reason.appleStatus?.code
                problems = [reason.description,
                            "The App Store gave no decision within the retry window (APPSTORE_RETRY_FOR) of the "
                                + "submission; an operator may retry it."]
                malformedAnswer = reason == .malformedReceiptData
            }
        }

        /// What an invalid attempt records of Apple's refusal. A function of its own: switching on the refusal
        /// inside the switch on the step crashes the Swift 6.3.1 optimizer (CopyPropagation) in release builds.
        private static func recorded(_ refusal: ReceiptRefusal) -> (Int?, [String], Bool) {
            let status = refusal.appleStatus
            return (status?.code, [refusal.description], status == .malformedReceiptData)
        }

        /// What the lease of a submission whose receipt is no longer stored records: failed, and why.
        public static func receiptMissing(_ lease: Lease) -> Outcome {
            Outcome(submissionID: lease.submissionID, attempts: lease.attempts, status: .failed,
                    problems: ["The receipt of this submission is no longer stored, so it cannot be verified."])
        }
    }

    /// Leases up to `limit` due submissions for `duration`: those queued or retrying whose time has come, and
    /// those whose lease expired, oldest due first; rows another worker is leasing now are skipped, never waited
    /// for.
    public func lease(_ limit: Int, for duration: Duration) async throws -> [Lease] {
        guard limit > 0 else { return [] }
        let rows = try await database.execute(LeaseDue(limit: limit, milliseconds: duration.wholeMilliseconds))
        return try rows.map { row in
            let (id, app, attempts, malformed, created, receipt) =
                try row.decode((UUID, String, Int, Int, Date, String?).self)
            return Lease(submissionID: id, bundleID: app, attempts: attempts, malformedAnswers: malformed,
                         submittedAt: created, receipt: receipt.map(ReceiptData.init(base64:)))
        }
    }

    /// How long until the next submission is due (a retry's time, a lease's end), by the database's clock;
    /// zero or less when one is due now, `nil` when none is waiting.
    public func untilNextDue() async throws -> Duration? {
        let rows = try await database.execute(NextDue())
        guard let row = rows.first, let milliseconds = try row.decode(Int64?.self) else { return nil }
        return .milliseconds(milliseconds)
    }

    /// Records `outcome` with the outcomes of other attempts finishing now, in one statement and one transaction
    /// (with the service's batching): the one way an attempt's outcome is written, whatever it is. Answers
    /// whether it was recorded: `false` when the lease is no longer the attempt's (expired, and taken by another
    /// worker).
    public func record(_ outcome: Outcome) async throws -> Bool {
        if let batches = database.outcomeBatches, Database.held == nil {
            Database.scope?.end()
            return try await batches.write(outcome, on: database)
        }
        return try await Self.record([outcome], on: database)[0] ?? false
    }

    /// One statement for `outcomes`; answers, by position, whether each was recorded.
    static func record(_ outcomes: [Outcome], on database: Database) async throws -> [Bool?] {
        // Ledger rows are locked in one order by every batch, as intake's batches do.
        let order = outcomes.indices.sorted { outcomes[$0].ledgerKey < outcomes[$1].ledgerKey }
        let items = JSONObjectWriter.array(order.map { Self.outcomeItem(outcomes[$0]) })
        let rows = try await database.execute(RecordOutcomes(items: items))
        var answers = [Bool?](repeating: false, count: outcomes.count)
        for row in rows {
            let ordinal = try row.decode(Int.self)
            if order.indices.contains(ordinal - 1) { answers[order[ordinal - 1]] = true }
        }
        return answers
    }

    /// Gives leases back (a worker shutting down before their attempts ended): each still held by its attempt is
    /// retrying and due now, for any worker. Answers how many were given back.
    @discardableResult
    public func release(_ leases: [Lease]) async throws -> Int {
        guard !leases.isEmpty else { return 0 }
        let rows = try await database.execute("""
            UPDATE purchase_submissions s SET
                status = 'retrying', next_attempt_at = now(), lease_expires_at = NULL, updated_at = now()
            FROM unnest(\(leases.map(\.submissionID))::uuid[], \(leases.map(\.attempts))::integer[]) AS l(id, attempts)
            WHERE s.id = l.id AND s.status = 'verifying' AND s.attempts = l.attempts
            RETURNING s.id
            """)
        return rows.count
    }

    struct LeaseDue: PreparedQuery {
        static let name = "SubmissionQueue.LeaseDue"
        // Two partial indexes (0013) find the due rows: expired leases first (their attempt is the older one),
        // then queued and retrying submissions by their time. Each takes at most `limit` rows another worker is not
        // leasing at this moment; the update takes `limit` of those.
        static let sql = """
            WITH expired AS (
                SELECT s.id, s.app FROM purchase_submissions s
                WHERE s.status = 'verifying' AND s.lease_expires_at <= now()
                ORDER BY s.lease_expires_at
                LIMIT $1 FOR UPDATE SKIP LOCKED
            ), due AS (
                SELECT s.id, s.app FROM purchase_submissions s
                WHERE s.status IN ('queued', 'retrying') AND s.next_attempt_at <= now()
                ORDER BY s.next_attempt_at
                LIMIT $1 FOR UPDATE SKIP LOCKED
            ), chosen AS (
                (SELECT id, app FROM expired) UNION ALL (SELECT id, app FROM due) LIMIT $1
            )
            UPDATE purchase_submissions s SET
                status = 'verifying', attempts = s.attempts + 1, next_attempt_at = NULL,
                lease_expires_at = now() + $2 * interval '1 millisecond', updated_at = now()
            FROM chosen c
            LEFT JOIN submission_receipts r ON r.submission_id = c.id
            WHERE s.id = c.id
            RETURNING s.id, s.app, s.attempts, s.malformed_answers, s.created_at, r.receipt
            """
        static let bindingDataTypes: [PostgresDataType] = [.int8, .int8]
        let limit: Int
        let milliseconds: Int64

        func makeBindings() -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 2)
            bindings.append(limit)
            bindings.append(milliseconds)
            return bindings
        }
    }

    struct NextDue: PreparedQuery {
        static let name = "SubmissionQueue.NextDue"
        // Each minimum is the first entry of its partial index.
        static let sql = """
            SELECT (extract(epoch FROM least(
                (SELECT min(s.next_attempt_at) FROM purchase_submissions s WHERE s.status IN ('queued', 'retrying')),
                (SELECT min(s.lease_expires_at) FROM purchase_submissions s WHERE s.status = 'verifying')
            ) - now()) * 1000)::bigint
            """
        static let bindingDataTypes: [PostgresDataType] = []

        func makeBindings() -> PostgresBindings { PostgresBindings() }
    }

    /// sql/0016's receipt_queue_record over the items, as JSON.
    struct RecordOutcomes: JSONItemsQuery {
        static let name = "SubmissionQueue.RecordOutcomes"
        static let sql = "SELECT ordinal FROM receipt_queue_record($1::jsonb)"
        let items: String
    }

    private static func outcomeItem(_ outcome: Outcome) -> JSONObjectWriter {
        var item = JSONObjectWriter()
        item.add("submissionId", outcome.submissionID.uuidString)
        item.add("attempts", outcome.attempts)
        item.add("status", outcome.status.rawValue)
        item.add("environment", outcome.environment?.rawValue)
        item.add("appleStatus", outcome.appleStatus)
        item.add("problems", strings: outcome.problems)
        item.add("malformed", outcome.malformedAnswer)
        item.add("nextAttemptAt", outcome.nextAttemptAt.map(RFC3339Text.milliseconds))
        item.add("transactions", outcome.transactions.sorted {
            ($0.environment.rawValue, $0.transactionId) < ($1.environment.rawValue, $1.transactionId)
        }.map(PurchaseJSON.facts))
        item.add("reason", "receipt verified by the App Store")
        return item
    }
}

extension SubmissionQueue.Outcome {
    /// Where the outcome's first ledger row sorts (empty for outcomes that write none, which lock no ledger row).
    var ledgerKey: String {
        transactions.map { "\($0.environment.rawValue)|\($0.transactionId)" }.min() ?? ""
    }
}

/// The batches of the queue's outcomes.
typealias OutcomeBatches = WriteBatches<SubmissionQueue.Outcome, Bool>

extension OutcomeBatches {
    /// Outcomes of concurrent attempts, written together by receipt_queue_record, one batch at a time: no client
    /// waits for an outcome, and the outcomes that gather meanwhile make the next batch larger, which costs
    /// PostgreSQL less per receipt (docs/performance.md, "Receipts: verified outcomes a statement per step").
    static func outcomes() -> OutcomeBatches {
        OutcomeBatches(
            maximumRunning: 1,
            batch: { try await SubmissionQueue.record($0, on: $1) },
            alone: { outcome, database in try await SubmissionQueue.record([outcome], on: database)[0] ?? false })
    }
}

extension Database {
    /// The receipt verification queue.
    public var queue: SubmissionQueue { SubmissionQueue(database: self) }
}

extension Duration {
    /// The duration in whole milliseconds, for SQL intervals.
    var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
