import CatalogCore
import Crypto
import Foundation
import PostgresNIO
import PurchaseCore

/// Which submissions a listing answers.
public struct SubmissionFilter: Sendable, Hashable {
    public var status: SubmissionStatus?
    /// Only submissions not decided yet (queued, verifying, retrying).
    public var pendingOnly: Bool
    public var accountToken: String?
    /// Only the submissions of this key (a client key reads only its own).
    public var keyID: UUID?

    public init(status: SubmissionStatus? = nil, pendingOnly: Bool = false, accountToken: String? = nil,
                keyID: UUID? = nil) {
        self.status = status
        self.pendingOnly = pendingOnly
        self.accountToken = accountToken
        self.keyID = keyID
    }
}

/// Where a page of submissions continues: after the submission made at `createdMicroseconds` (since 1970) with
/// `id`, newest first.
public struct SubmissionCursor: Sendable, Hashable {
    public let createdMicroseconds: Int64
    public let id: UUID

    public init(createdMicroseconds: Int64, id: UUID) {
        self.createdMicroseconds = createdMicroseconds
        self.id = id
    }
}

/// What client apps submitted, in PostgreSQL: the intake of signed transactions (recorded with their ledger rows)
/// and of receipts (queued for verification), reads, and an operator's retry.
///
/// Intake is written in batches (``WriteBatches``) when the service runs: concurrent submissions are recorded by
/// one statement and one commit, each answered after the commit with its own outcome.
public struct PurchaseSubmissionRepository: Sendable {
    let database: Database

    /// A signed transaction verified in its request, to record with its transaction.
    public struct SignedPurchase: Sendable, Hashable {
        public var bundleID: String
        /// The key that submitted it (the client's).
        public var keyID: UUID
        /// The account it is submitted for, `""` for none.
        public var accountToken: String
        /// SHA-256 of the signed transaction as sent.
        public var proofSHA256: [UInt8]
        public var facts: TransactionFacts
        /// Who submitted it, for the history event of its transaction.
        public var actor: Actor
        public var requestID: String?

        public init(bundleID: String, keyID: UUID, accountToken: String, proof: PurchaseProof, facts: TransactionFacts,
                    actor: Actor, requestID: String?) {
            self.bundleID = bundleID
            self.keyID = keyID
            self.accountToken = accountToken
            proofSHA256 = PurchaseSubmissionRepository.digest(proof)
            self.facts = facts
            self.actor = actor
            self.requestID = requestID
        }
    }

    /// A receipt to queue for verification.
    public struct QueuedReceipt: Sendable, Hashable {
        public var bundleID: String
        public var keyID: UUID
        public var accountToken: String
        public var receipt: String
        public var proofSHA256: [UInt8]

        public init(bundleID: String, keyID: UUID, accountToken: String, receipt: String) {
            self.bundleID = bundleID
            self.keyID = keyID
            self.accountToken = accountToken
            self.receipt = PurchaseProof.receipt(receipt).canonicalText
            proofSHA256 = PurchaseSubmissionRepository.digest(canonicalText: self.receipt)
        }
    }

    /// A submission as intake left it: new now, or the one the same proof made before.
    public struct Intake: Sendable, Hashable {
        public let created: Bool
        public let submission: PurchaseSubmission
    }

    /// SHA-256 of a proof's canonical text: what makes the same proof one submission.
    public static func digest(_ proof: PurchaseProof) -> [UInt8] {
        digest(canonicalText: proof.canonicalText)
    }

    static func digest(canonicalText: String) -> [UInt8] {
        Array(SHA256.hash(data: Data(canonicalText.utf8)))
    }

    /// Records a verified signed transaction: its submission (once per app, account and proof) and, for a new
    /// submission, its transaction merged into the ledger with its history event. The same proof again answers
    /// the submission it made.
    public func recordSigned(_ purchase: SignedPurchase) async throws -> Intake {
        if let batches = database.purchaseBatches, Database.held == nil {
            Database.scope?.end()
            return try await batches.signed.write(purchase, on: database)
        }
        return try await Self.recordSigned([purchase], on: database)[0] ?? Self.missingAnswer()
    }

    /// Stores a receipt and queues its submission for verification, due now; the same proof again answers the
    /// submission it made, as it stands.
    public func queueReceipt(_ receipt: QueuedReceipt) async throws -> Intake {
        if let batches = database.purchaseBatches, Database.held == nil {
            Database.scope?.end()
            return try await batches.receipts.write(receipt, on: database)
        }
        return try await Self.queueReceipts([receipt], on: database)[0] ?? Self.missingAnswer()
    }

    private static func missingAnswer() throws -> Intake {
        throw StoreInvariantViolation(description: "the database answered nothing for a submission")
    }

    /// One statement for `purchases`, sorted so that concurrent batches lock ledger rows in one order; answers
    /// each purchase's intake by its position in `purchases`.
    static func recordSigned(_ purchases: [SignedPurchase], on database: Database) async throws -> [Intake?] {
        let order = purchases.indices.sorted {
            let a = purchases[$0], b = purchases[$1]
            return (a.bundleID, a.facts.environment.rawValue, a.facts.transactionId, a.accountToken)
                < (b.bundleID, b.facts.environment.rawValue, b.facts.transactionId, b.accountToken)
        }
        let items = JSONObjectWriter.array(order.map { signedItem(purchases[$0]) })
        var answers = [Intake?](repeating: nil, count: purchases.count)
        for row in try await database.execute(RecordSigned(items: items)) {
            let (ordinal, created, text, id, recordedAt, catalogType, credited) =
                try row.decode((Int, Bool, String?, UUID?, String?, String?, Bool?).self)
            guard order.indices.contains(ordinal - 1) else { continue }
            let position = order[ordinal - 1]
            if let text {
                answers[position] = Intake(created: created, submission: try PurchaseRowJSON.submission(text))
            } else if let id, let recordedAt, let credited {
                guard let now = PostgresJSONTime.parse(recordedAt) else {
                    throw PurchaseRowJSON.unreadable("a submission's time", recordedAt)
                }
                answers[position] = Intake(created: true, submission: recorded(
                    purchases[position], id: id, at: now,
                    catalogType: catalogType.flatMap(PurchaseType.init(rawValue:)), credited: credited))
            }
        }
        return answers
    }

    /// The submission a new signed transaction made, with its transaction recorded by it, from what the database
    /// answered for it (sql/0037): what reading them back would give, to the bit, without reading them.
    private static func recorded(_ purchase: SignedPurchase, id: UUID, at now: Date, catalogType: PurchaseType?,
                                 credited: Bool) -> PurchaseSubmission {
        var facts = purchase.facts
        facts.purchaseDate = PostgresJSONTime.stored(facts.purchaseDate)
        facts.originalPurchaseDate = facts.originalPurchaseDate.map(PostgresJSONTime.stored)
        facts.expiresDate = facts.expiresDate.map(PostgresJSONTime.stored)
        facts.revocationDate = facts.revocationDate.map(PostgresJSONTime.stored)
        let transaction = LedgerTransaction.recording(facts, in: purchase.bundleID, account: purchase.accountToken,
                                                      inheritedAccount: nil, catalogType: catalogType, at: now)
        return PurchaseSubmission(
            id: id, bundleID: purchase.bundleID, keyID: purchase.keyID, accountToken: purchase.accountToken,
            kind: .signedTransaction, status: .verified, environment: purchase.facts.environment, attempts: 1,
            nextAttemptAt: nil, leaseExpiresAt: nil, appleStatus: nil, problems: [], createdAt: now, updatedAt: now,
            finishedAt: now,
            transactions: [SubmittedTransaction(transaction: transaction, credited: credited, alreadyRecorded: false)])
    }

    static func queueReceipts(_ receipts: [QueuedReceipt], on database: Database) async throws -> [Intake?] {
        let order = receipts.indices.sorted {
            let a = receipts[$0], b = receipts[$1]
            return (a.bundleID, a.accountToken, a.proofSHA256.hex) < (b.bundleID, b.accountToken, b.proofSHA256.hex)
        }
        let items = JSONObjectWriter.array(order.map { receiptItem(receipts[$0]) })
        let rows = try await database.execute(QueueReceipts(items: items))
        return try answers(rows, order: order, count: receipts.count)
    }

    /// The rows `(ordinal, created, submission)` of a batch function, by the caller's positions: `order[i]` is the
    /// position of the item the function saw at ordinal i + 1.
    private static func answers(_ rows: [PostgresRow], order: [Int], count: Int) throws -> [Intake?] {
        var answers = [Intake?](repeating: nil, count: count)
        for row in rows {
            let (ordinal, created, text) = try row.decode((Int, Bool, String).self)
            guard order.indices.contains(ordinal - 1) else { continue }
            answers[order[ordinal - 1]] = Intake(created: created, submission: try PurchaseRowJSON.submission(text))
        }
        return answers
    }

    /// The submission `id` of the app, with its transactions.
    public func find(_ bundleID: String, id: UUID) async throws -> PurchaseSubmission? {
        let rows = try await database.execute(Find(bundleID: bundleID, id: id))
        return try rows.first.map { try PurchaseRowJSON.submission(try $0.decode(String.self)) }
    }

    /// One page of the app's submissions `filter` selects, newest first, after `cursor`; without their
    /// transactions.
    public func list(_ bundleID: String, filter: SubmissionFilter, after cursor: SubmissionCursor?, limit: Int)
        async throws -> [(PurchaseSubmission, SubmissionCursor)]
    {
        let rows = try await database.execute("""
            SELECT (to_jsonb(s) - 'proof_sha256')::text, (extract(epoch FROM s.created_at) * 1000000)::bigint
            FROM purchase_submissions s
            WHERE s.app = \(bundleID)
              AND (\(filter.status?.rawValue)::submission_status IS NULL OR s.status = \(filter.status?.rawValue)::submission_status)
              AND (NOT \(filter.pendingOnly) OR s.status IN ('queued', 'verifying', 'retrying'))
              AND (\(filter.accountToken)::text IS NULL OR s.account_token = \(filter.accountToken))
              AND (\(filter.keyID)::uuid IS NULL OR s.key_id = \(filter.keyID))
              AND (\(cursor?.createdMicroseconds)::bigint IS NULL
                   OR (s.created_at, s.id)
                      < (timestamptz 'epoch' + \(cursor?.createdMicroseconds)::bigint * interval '1 microsecond', \(cursor?.id)))
            ORDER BY s.created_at DESC, s.id DESC
            LIMIT \(limit)
            """)
        return try rows.map { row in
            let (text, micros) = try row.decode((String, Int64).self)
            let submission = try PurchaseRowJSON.submission(text)
            return (submission, SubmissionCursor(createdMicroseconds: micros, id: submission.id))
        }
    }

    /// What an operator's retry did.
    public enum Retry: Sendable, Hashable {
        /// The submission is due now (`retrying`).
        case due(PurchaseSubmission)
        /// The submission is not retrying or failed: nothing changed.
        case notRetryable(SubmissionStatus)
    }

    /// Makes a retrying or failed submission due now; `nil` when the app has no such submission.
    public func retryNow(_ bundleID: String, id: UUID) async throws -> Retry? {
        let rows = try await database.execute("""
            UPDATE purchase_submissions s SET status = 'retrying', next_attempt_at = now(), finished_at = NULL,
                updated_at = now()
            WHERE s.app = \(bundleID) AND s.id = \(id) AND s.status IN ('retrying', 'failed')
            RETURNING purchase_submission_json(s)::text
            """)
        if let row = rows.first { return .due(try PurchaseRowJSON.submission(try row.decode(String.self))) }
        guard let submission = try await find(bundleID, id: id) else { return nil }
        return .notRetryable(submission.status)
    }

    struct Find: PreparedQuery {
        static let name = "PurchaseSubmissionRepository.Find"
        static let sql = """
            SELECT purchase_submission_json(s)::text FROM purchase_submissions s WHERE s.app = $1 AND s.id = $2
            """
        static let bindingDataTypes: [PostgresDataType] = [.text, .uuid]
        let bundleID: String
        let id: UUID

        func makeBindings() -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 2)
            bindings.append(bundleID)
            bindings.append(id)
            return bindings
        }
    }

    /// sql/0037's purchases_record_signed over the items, as JSON: each item's submission as JSON, or for a batch
    /// of new transactions what the server writes it from.
    struct RecordSigned: JSONItemsQuery {
        static let name = "PurchaseSubmissionRepository.RecordSigned"
        static let sql = """
            SELECT ordinal, created, submission::text, submission_id, to_json(recorded_at) #>> '{}',
                   catalog_type::text, credited
            FROM purchases_record_signed($1::jsonb)
            """
        let items: String
    }

    /// sql/0013's purchases_queue_receipts over the items, as JSON.
    struct QueueReceipts: JSONItemsQuery {
        static let name = "PurchaseSubmissionRepository.QueueReceipts"
        static let sql = "SELECT ordinal, created, submission::text FROM purchases_queue_receipts($1::jsonb)"
        let items: String
    }

    /// The members of every intake item: whose submission it is, and the digest of what it proves.
    private static func intakeItem(_ bundleID: String, key keyID: UUID, account accountToken: String,
                                   proof proofSHA256: [UInt8]) -> JSONObjectWriter {
        var item = JSONObjectWriter()
        item.add("app", bundleID)
        item.add("keyId", keyID.uuidString)
        item.add("accountToken", accountToken)
        item.add("proofSha256", proofSHA256.hex)
        return item
    }

    static func signedItem(_ purchase: SignedPurchase) -> JSONObjectWriter {
        var item = intakeItem(purchase.bundleID, key: purchase.keyID, account: purchase.accountToken,
                              proof: purchase.proofSHA256)
        item.add("environment", purchase.facts.environment.rawValue)
        item.add("facts", PurchaseJSON.facts(purchase.facts))
        item.add("actor", PurchaseJSON.actor(purchase.actor))
        item.add("reason", "signed transaction submitted")
        item.add("requestId", purchase.requestID)
        return item
    }

    private static func receiptItem(_ receipt: QueuedReceipt) -> JSONObjectWriter {
        var item = intakeItem(receipt.bundleID, key: receipt.keyID, account: receipt.accountToken,
                              proof: receipt.proofSHA256)
        item.add("receipt", receipt.receipt)
        return item
    }
}

/// The batches of intake, one for each kind of proof.
final class PurchaseBatches: Sendable {
    let signed = WriteBatches<PurchaseSubmissionRepository.SignedPurchase, PurchaseSubmissionRepository.Intake>(
        batch: { try await PurchaseSubmissionRepository.recordSigned($0, on: $1) },
        alone: { purchase, database in
            guard let answer = try await PurchaseSubmissionRepository.recordSigned([purchase], on: database)[0] else {
                throw StoreInvariantViolation(description: "the database answered nothing for a submission")
            }
            return answer
        })
    let receipts = WriteBatches<PurchaseSubmissionRepository.QueuedReceipt, PurchaseSubmissionRepository.Intake>(
        batch: { try await PurchaseSubmissionRepository.queueReceipts($0, on: $1) },
        alone: { receipt, database in
            guard let answer = try await PurchaseSubmissionRepository.queueReceipts([receipt], on: database)[0] else {
                throw StoreInvariantViolation(description: "the database answered nothing for a submission")
            }
            return answer
        })

    /// Submissions waiting for their batch or being written.
    var unanswered: Int { signed.unanswered + receipts.unanswered }
}

extension [UInt8] {
    /// Lowercase hex digits.
    var hex: String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(count * 2)
        for byte in self {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
