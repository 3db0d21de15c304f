import CatalogCore
import Foundation

/// One row of the ledger: an App Store transaction as every source that brought it has told it, recorded once
/// per environment and `transactionId`, and credited to one account.
public struct LedgerTransaction: Sendable, Hashable {
    public var bundleID: String
    public var environment: AppStoreEnvironment
    public var transactionId: String
    public var originalTransactionId: String
    public var productId: String
    public var appleType: String?
    /// The catalog's type of the product when the transaction was recorded; `nil`: not in the catalog.
    public var catalogType: PurchaseType?
    /// The product is not in the catalog, or its catalog type is not Apple's.
    public var catalogMismatch: Bool
    public var quantity: Int
    public var purchaseDate: Date
    public var originalPurchaseDate: Date?
    public var expiresDate: Date?
    public var revocationDate: Date?
    public var revocationReason: Int?
    /// Apple's price in milliunits of `currency`.
    public var price: Int64?
    public var currency: String?
    public var storefront: String?
    public var appTransactionId: String?
    public var inAppOwnershipType: String?
    public var webOrderLineItemId: String?
    public var transactionReason: String?
    /// The account credited, `""` until a source names one.
    public var accountToken: String
    /// Grows with every change.
    public var version: Int
    public var createdAt: Date
    public var updatedAt: Date

    public init(
        bundleID: String, environment: AppStoreEnvironment, transactionId: String, originalTransactionId: String,
        productId: String, appleType: String?, catalogType: PurchaseType?, catalogMismatch: Bool, quantity: Int,
        purchaseDate: Date, originalPurchaseDate: Date?, expiresDate: Date?, revocationDate: Date?,
        revocationReason: Int?, price: Int64?, currency: String?, storefront: String?, appTransactionId: String?,
        inAppOwnershipType: String?, webOrderLineItemId: String?, transactionReason: String?, accountToken: String,
        version: Int, createdAt: Date, updatedAt: Date
    ) {
        self.bundleID = bundleID
        self.environment = environment
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        self.productId = productId
        self.appleType = appleType
        self.catalogType = catalogType
        self.catalogMismatch = catalogMismatch
        self.quantity = quantity
        self.purchaseDate = purchaseDate
        self.originalPurchaseDate = originalPurchaseDate
        self.expiresDate = expiresDate
        self.revocationDate = revocationDate
        self.revocationReason = revocationReason
        self.price = price
        self.currency = currency
        self.storefront = storefront
        self.appTransactionId = appTransactionId
        self.inAppOwnershipType = inAppOwnershipType
        self.webOrderLineItemId = webOrderLineItemId
        self.transactionReason = transactionReason
        self.accountToken = accountToken
        self.version = version
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// Whether the App Store refunded or revoked it (and did not reverse that).
    public var isRevoked: Bool { revocationDate != nil }

    /// Whether a catalog product of type `catalogType` (nil: none) and Apple's type disagree.
    public static func mismatch(catalogType: PurchaseType?, appleType: String?, applePurchaseType: PurchaseType?) -> Bool {
        catalogType == nil || (appleType != nil && applePurchaseType != catalogType)
    }

    /// What became of a transaction when a source brought it.
    public enum Outcome: String, Sendable, Hashable, CaseIterable {
        /// It was new: recorded now, credited to the account the rule names.
        case recorded
        /// It was known: the source added facts (a later expiry, a refund or its reversal, a price).
        case updated
        /// It was known and the source added nothing.
        case unchanged
    }

    /// A new transaction from `facts`, brought for `account` (`""` for none), of a catalog product of type
    /// `catalogType` (nil: not in the catalog). It is credited to Apple's `appAccountToken` if the transaction
    /// carries one, else to `account`, else to `inheritedAccount` (the account of its original transaction: a
    /// renewal the App Store notified).
    public static func recording(_ facts: TransactionFacts, in bundleID: String, account: String,
                                 inheritedAccount: String?, catalogType: PurchaseType?, at now: Date)
        -> LedgerTransaction
    {
        LedgerTransaction(
            bundleID: bundleID, environment: facts.environment, transactionId: facts.transactionId,
            originalTransactionId: facts.originalTransactionId, productId: facts.productId, appleType: facts.appleType,
            catalogType: catalogType,
            catalogMismatch: mismatch(catalogType: catalogType, appleType: facts.appleType,
                                      applePurchaseType: facts.applePurchaseType),
            quantity: facts.quantity, purchaseDate: facts.purchaseDate, originalPurchaseDate: facts.originalPurchaseDate,
            expiresDate: facts.expiresDate, revocationDate: facts.refundReversed ? nil : facts.revocationDate,
            revocationReason: facts.refundReversed ? nil : facts.revocationReason, price: facts.price,
            currency: facts.currency, storefront: facts.storefront, appTransactionId: facts.appTransactionId,
            inAppOwnershipType: facts.inAppOwnershipType, webOrderLineItemId: facts.webOrderLineItemId,
            transactionReason: facts.transactionReason,
            accountToken: facts.appAccountToken ?? (account.isEmpty ? nil : account) ?? inheritedAccount ?? "",
            version: 1, createdAt: now, updatedAt: now)
    }

    /// This transaction after a later source told `facts` of it, for `account`: the ledger's merge rule. A later
    /// source adds facts and never a second credit: the product, quantity, purchase date and the account credited
    /// (once there is one) never change; the expiry only moves later; a refund, a price and the descriptive facts
    /// are taken when the row lacks them; a reversed refund lifts the revocation. `version` grows when anything
    /// changed. `ledger_merge` (sql/0013) is the same rule in SQL.
    public func merging(_ facts: TransactionFacts, account: String, at now: Date) -> (LedgerTransaction, Outcome) {
        var merged = self
        if accountToken.isEmpty {
            merged.accountToken = facts.appAccountToken ?? account
        }
        merged.originalPurchaseDate = originalPurchaseDate ?? facts.originalPurchaseDate
        merged.expiresDate = [expiresDate, facts.expiresDate].compactMap { $0 }.max()
        if facts.refundReversed {
            merged.revocationDate = nil
            merged.revocationReason = nil
        } else if revocationDate == nil, let revoked = facts.revocationDate {
            merged.revocationDate = revoked
            merged.revocationReason = facts.revocationReason
        }
        if price == nil, let price = facts.price, let currency = facts.currency {
            merged.price = price
            merged.currency = currency
        }
        merged.storefront = storefront ?? facts.storefront
        merged.appTransactionId = appTransactionId ?? facts.appTransactionId
        merged.inAppOwnershipType = inAppOwnershipType ?? facts.inAppOwnershipType
        merged.webOrderLineItemId = webOrderLineItemId ?? facts.webOrderLineItemId
        merged.transactionReason = transactionReason ?? facts.transactionReason
        if appleType == nil, let type = facts.appleType {
            merged.appleType = type
            merged.catalogMismatch = Self.mismatch(catalogType: catalogType, appleType: type,
                                                   applePurchaseType: facts.applePurchaseType)
        }
        guard merged != self else { return (self, .unchanged) }
        merged.version += 1
        merged.updatedAt = now
        return (merged, .updated)
    }

    /// Whether the transaction is credited to `account`.
    public func isCredited(to account: String) -> Bool { accountToken == account }
}
