import Foundation

/// What a client app sent after a purchase, and where its verification stands (DESIGN.md: a submission).
public struct PurchaseSubmission: Sendable, Hashable {
    /// The two proofs of a purchase a client can send.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// StoreKit 2's `jwsRepresentation`, verified offline in the request.
        case signedTransaction = "signed_transaction"
        /// The app receipt, verified with the App Store's verifyReceipt by the queue.
        case receipt
    }

    public var id: UUID
    public var bundleID: String
    /// The key that submitted it.
    public var keyID: UUID
    /// The account it was submitted for, `""` for none.
    public var accountToken: String
    public var kind: Kind
    public var status: SubmissionStatus
    public var environment: AppStoreEnvironment?
    public var attempts: Int
    public var nextAttemptAt: Date?
    public var leaseExpiresAt: Date?
    public var appleStatus: Int?
    /// Why it is invalid, failed or retried, one sentence each.
    public var problems: [String]
    public var createdAt: Date
    public var updatedAt: Date
    public var finishedAt: Date?
    /// The transactions it brought into the ledger, each with what it means for this submission's account.
    public var transactions: [SubmittedTransaction]

    public init(id: UUID, bundleID: String, keyID: UUID, accountToken: String, kind: Kind, status: SubmissionStatus,
                environment: AppStoreEnvironment?, attempts: Int, nextAttemptAt: Date?, leaseExpiresAt: Date?,
                appleStatus: Int?, problems: [String], createdAt: Date, updatedAt: Date, finishedAt: Date?,
                transactions: [SubmittedTransaction]) {
        self.id = id
        self.bundleID = bundleID
        self.keyID = keyID
        self.accountToken = accountToken
        self.kind = kind
        self.status = status
        self.environment = environment
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.leaseExpiresAt = leaseExpiresAt
        self.appleStatus = appleStatus
        self.problems = problems
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.finishedAt = finishedAt
        self.transactions = transactions
    }
}

/// A transaction of the ledger as one submission brought it.
public struct SubmittedTransaction: Sendable, Hashable {
    public var transaction: LedgerTransaction
    /// Whether it is credited to the submission's account (a transaction is credited once).
    public var credited: Bool
    /// Whether an earlier submission or notification had recorded it already.
    public var alreadyRecorded: Bool

    public init(transaction: LedgerTransaction, credited: Bool, alreadyRecorded: Bool) {
        self.transaction = transaction
        self.credited = credited
        self.alreadyRecorded = alreadyRecorded
    }
}

/// The proof of a purchase as a client sent it, and the digest that makes the same proof one submission.
public enum PurchaseProof: Sendable, Hashable {
    case signedTransaction(String)
    case receipt(String)

    public var kind: PurchaseSubmission.Kind {
        switch self {
        case .signedTransaction: .signedTransaction
        case .receipt: .receipt
        }
    }

    /// The text that identifies the proof: a signed transaction as sent, a receipt without whitespace (a line
    /// break a client's base64 encoder adds does not make another receipt).
    public var canonicalText: String {
        switch self {
        case .signedTransaction(let text): text
        case .receipt(let text): Self.withoutWhitespace(text)
        }
    }

    /// `text` without Unicode whitespace. A receipt is base64, ASCII, and usually has none: its bytes are read
    /// once, as one buffer, and Unicode's properties are looked up only for text that is not ASCII (what a lookup
    /// per character cost: docs/performance.md, 2026-11-28, "the receipt's text from its bytes").
    static func withoutWhitespace(_ text: String) -> String {
        let (ascii, blanks) = text.utf8.withContiguousStorageIfAvailable(Self.scan) ?? Self.scan(text.utf8)
        guard ascii else { return String(text.unicodeScalars.filter { !$0.properties.isWhitespace }) }
        return blanks ? String(decoding: text.utf8.filter { !isASCIIWhitespace($0) }, as: UTF8.self) : text
    }

    /// Whether `bytes` are all ASCII, and whether any is ASCII whitespace.
    static func scan(_ bytes: some Sequence<UInt8>) -> (ascii: Bool, blanks: Bool) {
        var high: UInt8 = 0
        var blanks = false
        for byte in bytes {
            high |= byte
            if isASCIIWhitespace(byte) { blanks = true }
        }
        return (high < 0x80, blanks)
    }

    private static func isASCIIWhitespace(_ byte: UInt8) -> Bool {
        (0x09...0x0D).contains(byte) || byte == 0x20
    }
}
