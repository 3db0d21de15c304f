import Foundation
import PurchaseCore

/// Which transactions of one app's ledger a listing, an export or a summary answers.
public struct LedgerFilter: Sendable, Hashable {
    /// The transactions credited to the account this token stands for, whichever form of its token they carry.
    public var accountToken: String?
    public var productID: String?
    public var originalTransactionID: String?
    public var environment: AppStoreEnvironment?
    /// Purchases at or after this instant.
    public var since: Date?
    /// Purchases before this instant.
    public var until: Date?

    public init(accountToken: String? = nil, productID: String? = nil, originalTransactionID: String? = nil,
                environment: AppStoreEnvironment? = nil, since: Date? = nil, until: Date? = nil) {
        self.accountToken = accountToken
        self.productID = productID
        self.originalTransactionID = originalTransactionID
        self.environment = environment
        self.since = since
        self.until = until
    }
}

/// Where a page of the ledger continues: after the transaction with this purchase date (microseconds since
/// 1970), environment and transactionId, in the listing's order.
public struct LedgerCursor: Sendable, Hashable {
    public let purchaseMicroseconds: Int64
    public let environment: AppStoreEnvironment
    public let transactionID: String

    public init(purchaseMicroseconds: Int64, environment: AppStoreEnvironment, transactionID: String) {
        self.purchaseMicroseconds = purchaseMicroseconds
        self.environment = environment
        self.transactionID = transactionID
    }
}

/// One row of the summary: one UTC day of purchase, environment, product and currency.
public struct LedgerSummaryRow: Sendable, Hashable {
    /// The day, as `YYYY-MM-DD`.
    public let day: String
    public let environment: AppStoreEnvironment
    public let productID: String
    /// `nil` for the transactions whose price Apple did not give.
    public let currency: String?
    public let transactions: Int
    public let units: Int
    /// The prices added up, in milliunits of `currency`.
    public let amount: Int64?
    public let pricedTransactions: Int
    public let refunds: Int
    public let refundedAmount: Int64?

    public init(day: String, environment: AppStoreEnvironment, productID: String, currency: String?, transactions: Int,
                units: Int, amount: Int64?, pricedTransactions: Int, refunds: Int, refundedAmount: Int64?) {
        self.day = day
        self.environment = environment
        self.productID = productID
        self.currency = currency
        self.transactions = transactions
        self.units = units
        self.amount = amount
        self.pricedTransactions = pricedTransactions
        self.refunds = refunds
        self.refundedAmount = refundedAmount
    }
}

/// A submission or notification that brought a transaction.
public struct LedgerSource: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable {
        case submission, notification
    }

    public let kind: Kind
    /// The submission's id or the notification's notificationUUID.
    public let id: UUID
    public let accountToken: String
    /// Whether this source recorded the transaction first.
    public let recorded: Bool
    public let at: Date

    public init(kind: Kind, id: UUID, accountToken: String, recorded: Bool, at: Date) {
        self.kind = kind
        self.id = id
        self.accountToken = accountToken
        self.recorded = recorded
        self.at = at
    }
}
