import Foundation
import PurchaseCore

/// What to put in a new stand-in receipt: the body of `POST /standin/receipts`, and what
/// `appstore-standin receipt` builds from its flags.
///
/// ```json
/// {"bundleId": "com.example.app", "environment": "Sandbox",
///  "products": ["coins.100"],
///  "transactions": [{"productId": "pro.monthly", "expiresInSeconds": 2592000, "appAccountToken": "…"}],
///  "status": 21005, "statusCalls": 2, "isRetryable": true}
/// ```
public struct ReceiptOrder: Sendable, Hashable, Codable {
    /// The app (`bundle_id`).
    public var bundleId: String
    /// `Production` or `Sandbox` (default `Sandbox`, where App Review and testers buy).
    public var environment: String?
    /// One purchase of each, quantity 1: a shorthand for ``transactions``.
    public var products: [String]?
    /// Purchases with more detail.
    public var transactions: [Purchase]?
    /// Answer this status instead of 0 at the receipt's own endpoint.
    public var status: Int?
    /// Only for the first this-many calls (default: every call).
    public var statusCalls: Int?
    /// `is-retryable` to send with ``status``.
    public var isRetryable: Bool?

    public init(bundleId: String, environment: String? = nil, products: [String]? = nil,
                transactions: [Purchase]? = nil, status: Int? = nil, statusCalls: Int? = nil,
                isRetryable: Bool? = nil) {
        self.bundleId = bundleId
        self.environment = environment
        self.products = products
        self.transactions = transactions
        self.status = status
        self.statusCalls = statusCalls
        self.isRetryable = isRetryable
    }

    /// One purchase in an order.
    public struct Purchase: Sendable, Hashable, Codable {
        /// The product bought.
        public var productId: String
        /// Units (default 1).
        public var quantity: Int?
        /// An auto-renewable subscription: its period ends this many seconds after the purchase.
        public var expiresInSeconds: Int?
        /// The app's `appAccountToken` for the purchase.
        public var appAccountToken: String?
        /// A renewal or a restore: the first transaction's id (default: the transaction itself).
        public var originalTransactionId: String?
        /// Seconds before now that the purchase was made (default 0).
        public var secondsAgo: Int?
        /// Refunded or revoked: `cancellation_date_ms` is set (reason `"0"`).
        public var refunded: Bool?

        public init(productId: String, quantity: Int? = nil, expiresInSeconds: Int? = nil,
                    appAccountToken: String? = nil, originalTransactionId: String? = nil, secondsAgo: Int? = nil,
                    refunded: Bool? = nil) {
            self.productId = productId
            self.quantity = quantity
            self.expiresInSeconds = expiresInSeconds
            self.appAccountToken = appAccountToken
            self.originalTransactionId = originalTransactionId
            self.secondsAgo = secondsAgo
            self.refunded = refunded
        }
    }

    /// Why an order cannot be issued, naming the field.
    public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        public let field: String
        public let message: String
        public var description: String { "\(field): \(message)" }
    }

    /// The receipt this order describes, with new transaction ids, made at `now`.
    public func receipt(now: Date = Date()) throws(Problem) -> StandInReceipt {
        guard !bundleId.isEmpty, bundleId.count <= 155 else {
            throw Problem(field: "bundleId", message: "must be 1 to 155 characters")
        }
        let endpoint: VerifyReceiptEndpoint
        switch environment ?? "Sandbox" {
        case "Sandbox", "sandbox": endpoint = .sandbox
        case "Production", "production": endpoint = .production
        default: throw Problem(field: "environment", message: "must be Production or Sandbox")
        }
        let purchases = (products ?? []).map { Purchase(productId: $0) } + (transactions ?? [])
        guard purchases.count <= 1000 else {
            throw Problem(field: "transactions", message: "at most 1000 purchases per receipt")
        }
        var made: [ReceiptTransaction] = []
        for (index, purchase) in purchases.enumerated() {
            guard !purchase.productId.isEmpty else {
                throw Problem(field: "transactions[\(index)].productId", message: "must not be empty")
            }
            guard (purchase.quantity ?? 1) >= 1 else {
                throw Problem(field: "transactions[\(index)].quantity", message: "must be at least 1")
            }
            let purchased = now.addingTimeInterval(-Double(max(0, purchase.secondsAgo ?? 0)))
            let transactionId = Self.newTransactionId()
            made.append(ReceiptTransaction(
                transactionId: transactionId,
                originalTransactionId: purchase.originalTransactionId ?? transactionId,
                productId: purchase.productId,
                quantity: purchase.quantity ?? 1,
                purchaseDate: purchased,
                originalPurchaseDate: purchased,
                expiresDate: purchase.expiresInSeconds.map { purchased.addingTimeInterval(Double($0)) },
                cancellationDate: purchase.refunded == true ? now : nil,
                cancellationReason: purchase.refunded == true ? "0" : nil,
                webOrderLineItemId: purchase.expiresInSeconds == nil ? nil : Self.newTransactionId(),
                inAppOwnershipType: "PURCHASED",
                appAccountToken: purchase.appAccountToken,
                isTrialPeriod: purchase.expiresInSeconds == nil ? nil : false))
        }
        if let status {
            guard status != 0 else { throw Problem(field: "status", message: "0 is the default; leave it out") }
            guard (1...99_999).contains(status) else {
                throw Problem(field: "status", message: "must be a status code such as 21005")
            }
        }
        if let statusCalls, statusCalls < 0 {
            throw Problem(field: "statusCalls", message: "must be 0 or more")
        }
        return StandInReceipt(bundleId: bundleId, environment: endpoint, issuedAt: now, transactions: made,
                              forcedStatus: status, forcedStatusCalls: status == nil ? nil : statusCalls,
                              isRetryable: isRetryable)
    }

    /// A new transaction id in Apple's shape (digits), random so that restarts of the stand-in never repeat one.
    static func newTransactionId() -> String {
        "2" + String(UInt64.random(in: 0..<100_000_000_000_000_000)).leftPadded(to: 17)
    }
}

extension String {
    func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}
