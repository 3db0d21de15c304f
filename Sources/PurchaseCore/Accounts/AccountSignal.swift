import Foundation

/// A kind of irregular activity the ledger noticed (DESIGN.md "Accounts", signals).
public enum AccountSignalKind: String, Sendable, Hashable, CaseIterable, Codable {
    /// A transaction credited to one account was brought for another: the second is not credited.
    case sharedTransaction
    /// One account's purchases came from more App Store accounts (`appTransactionId`s) than the app allows
    /// within its window.
    case manyStoreAccounts
    /// The App Store refunded or revoked a transaction.
    case refund
}

/// One signal as the ledger recorded it, in the same transaction as the ledger change that raised it (and as a
/// `signal_raised` history event in the app's chain).
public struct AccountSignal: Sendable, Hashable {
    /// Grows with every signal of every app: the listing's order and cursor.
    public var id: Int64
    public var bundleID: String
    public var kind: AccountSignalKind
    /// The account concerned: the one credited with the transaction (`""` when none is: a refund of a transaction
    /// no account brought).
    public var accountToken: String
    /// `sharedTransaction`: the account the transaction was brought for and not credited to.
    public var otherAccountToken: String?
    public var environment: AppStoreEnvironment
    public var transactionId: String
    public var productId: String
    /// `manyStoreAccounts`: the App Store accounts (`appTransactionId`s) behind the account's purchases within the
    /// window, the new one included, sorted (the first 100: ``storeAccountCount`` says how many there are).
    public var storeAccounts: [String]?
    /// `manyStoreAccounts`: how many App Store accounts; more than ``limit``.
    public var storeAccountCount: Int?
    public var limit: Int?
    public var windowHours: Int?
    /// `refund`: when and why, as Apple says.
    public var revocationDate: Date?
    public var revocationReason: Int?
    /// What brought the change: a submission's id or a notification's `notificationUUID`.
    public var sourceKind: String
    public var sourceId: UUID
    public var raisedAt: Date

    public init(id: Int64, bundleID: String, kind: AccountSignalKind, accountToken: String, otherAccountToken: String?,
                environment: AppStoreEnvironment, transactionId: String, productId: String, storeAccounts: [String]?,
                storeAccountCount: Int?, limit: Int?, windowHours: Int?, revocationDate: Date?, revocationReason: Int?, sourceKind: String,
                sourceId: UUID, raisedAt: Date) {
        self.id = id
        self.bundleID = bundleID
        self.kind = kind
        self.accountToken = accountToken
        self.otherAccountToken = otherAccountToken
        self.environment = environment
        self.transactionId = transactionId
        self.productId = productId
        self.storeAccounts = storeAccounts
        self.storeAccountCount = storeAccountCount
        self.limit = limit
        self.windowHours = windowHours
        self.revocationDate = revocationDate
        self.revocationReason = revocationReason
        self.sourceKind = sourceKind
        self.sourceId = sourceId
        self.raisedAt = raisedAt
    }
}
