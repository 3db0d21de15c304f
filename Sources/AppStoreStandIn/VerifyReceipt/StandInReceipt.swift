import Foundation
import PurchaseCore

/// What a receipt issued by the stand-in carries, sealed inside its opaque base64: the app, the environment,
/// the transactions, and any status the receipt is to be answered with instead of 0.
public struct StandInReceipt: Sendable, Hashable, Codable {
    /// Identifies the receipt in the stand-in's counts (`GET /standin/verifications/{id}`).
    public var id: UUID
    /// The app the receipt belongs to (`receipt.bundle_id`).
    public var bundleId: String
    /// Which endpoint verifies it: the other answers 21007 or 21008.
    public var environment: VerifyReceiptEndpoint
    /// When it was issued.
    public var issuedAt: Date
    /// The receipt's transactions (`receipt.in_app`; also `latest_receipt_info` when one is a subscription).
    public var transactions: [ReceiptTransaction]
    /// A status to answer at the receipt's own endpoint instead of 0 (21002, 21005, 21009, 21010, 211xx, ...).
    public var forcedStatus: Int?
    /// Answer ``forcedStatus`` only to the first this-many calls, then verify normally (`nil`: always).
    public var forcedStatusCalls: Int?
    /// `is-retryable` to send with ``forcedStatus``.
    public var isRetryable: Bool?

    public init(id: UUID = UUID(), bundleId: String, environment: VerifyReceiptEndpoint, issuedAt: Date = Date(),
                transactions: [ReceiptTransaction], forcedStatus: Int? = nil, forcedStatusCalls: Int? = nil,
                isRetryable: Bool? = nil) {
        self.id = id
        self.bundleId = bundleId
        self.environment = environment
        self.issuedAt = issuedAt
        self.transactions = transactions
        self.forcedStatus = forcedStatus
        self.forcedStatusCalls = forcedStatusCalls
        self.isRetryable = isRetryable
    }

    /// Whether any transaction is an auto-renewable subscription (it has an expiry): Apple then adds
    /// `latest_receipt_info`, `latest_receipt` and `pending_renewal_info` to its answer.
    public var hasSubscriptions: Bool { transactions.contains { $0.expiresDate != nil } }
}
