import CatalogCore
import Foundation

/// What one account owns, from the ledger's transactions credited to it (DESIGN.md "Accounts"), by the catalog's
/// types: non-consumables owned, subscriptions with their expiry and whether they are active now, consumables'
/// credited units, non-renewing purchases with their dates. A refunded or revoked transaction grants nothing and
/// is listed in ``revoked``; a transaction whose type neither the catalog nor Apple tells is listed in
/// ``unclassified``.
///
/// Environments are never mixed: each entitlement names its environment, and a Sandbox purchase never extends a
/// Production subscription.
public struct AccountEntitlements: Sendable, Hashable {
    /// A non-consumable product owned: its earliest transaction that was not revoked.
    public struct Ownership: Sendable, Hashable {
        public var productId: String
        public var environment: AppStoreEnvironment
        public var transactionId: String
        public var originalTransactionId: String
        public var purchaseDate: Date
    }

    /// A subscription (one `originalTransactionId`: the first purchase and its renewals), as its latest
    /// expiry among the transactions that were not revoked says.
    public struct Subscription: Sendable, Hashable {
        public var productId: String
        public var environment: AppStoreEnvironment
        public var type: PurchaseType
        public var originalTransactionId: String
        /// The transaction that expires last (its product is the subscription's now: an upgrade changes it).
        public var latestTransactionId: String
        public var purchaseDate: Date
        public var expiresDate: Date?
        /// The expiry is later than the moment of the answer.
        public var isActive: Bool
    }

    /// The units of a consumable product credited to the account, over its transactions that were not revoked.
    public struct ConsumableUnits: Sendable, Hashable {
        public var productId: String
        public var environment: AppStoreEnvironment
        public var units: Int
        public var transactions: Int
        public var lastPurchaseDate: Date
    }

    /// One purchase of a non-renewing subscription: the app decides its length, so its dates are what it gets.
    public struct NonRenewingPurchase: Sendable, Hashable {
        public var productId: String
        public var environment: AppStoreEnvironment
        public var transactionId: String
        public var purchaseDate: Date
        /// When Apple gave one (it seldom does for this type).
        public var expiresDate: Date?
    }

    /// A transaction that grants nothing: refunded or revoked (its dates and Apple's reason), or of a type nobody
    /// told.
    public struct Excluded: Sendable, Hashable {
        public var productId: String
        public var environment: AppStoreEnvironment
        public var transactionId: String
        public var purchaseDate: Date
        public var revocationDate: Date?
        public var revocationReason: Int?
    }

    public var nonConsumables: [Ownership] = []
    public var subscriptions: [Subscription] = []
    public var consumables: [ConsumableUnits] = []
    public var nonRenewing: [NonRenewingPurchase] = []
    public var revoked: [Excluded] = []
    public var unclassified: [Excluded] = []

    /// The type a transaction is counted as: the catalog's type of its product now (`catalogTypes`, by
    /// productId), else the catalog's type when it was recorded, else Apple's; `nil` when none says.
    public static func type(of transaction: LedgerTransaction, catalogTypes: [String: PurchaseType]) -> PurchaseType? {
        catalogTypes[transaction.productId] ?? transaction.catalogType
            ?? transaction.appleType.flatMap { AppStoreProductType(rawValue: $0).purchaseType }
    }

    /// The entitlements `transactions` (those credited to one account) grant at `now`.
    public init(_ transactions: [LedgerTransaction], catalogTypes: [String: PurchaseType], at now: Date) {
        struct Place: Hashable {
            let environment: AppStoreEnvironment
            let key: String
        }
        var owned: [Place: Ownership] = [:]
        var chains: [Place: Subscription] = [:]
        var units: [Place: ConsumableUnits] = [:]
        for transaction in transactions {
            let excluded = Excluded(productId: transaction.productId, environment: transaction.environment,
                                    transactionId: transaction.transactionId, purchaseDate: transaction.purchaseDate,
                                    revocationDate: transaction.revocationDate,
                                    revocationReason: transaction.revocationReason)
            if transaction.isRevoked {
                revoked.append(excluded)
                continue
            }
            guard let type = Self.type(of: transaction, catalogTypes: catalogTypes) else {
                unclassified.append(excluded)
                continue
            }
            switch type {
            case .nonConsumable:
                let place = Place(environment: transaction.environment, key: transaction.productId)
                if let earlier = owned[place], (earlier.purchaseDate, earlier.transactionId)
                    <= (transaction.purchaseDate, transaction.transactionId) { continue }
                owned[place] = Ownership(productId: transaction.productId, environment: transaction.environment,
                                         transactionId: transaction.transactionId,
                                         originalTransactionId: transaction.originalTransactionId,
                                         purchaseDate: transaction.purchaseDate)
            case .autoRenewableSubscription, .freeSubscription:
                let place = Place(environment: transaction.environment, key: transaction.originalTransactionId)
                if let latest = chains[place], !Self.expiresLater(transaction, than: latest) { continue }
                chains[place] = Subscription(
                    productId: transaction.productId, environment: transaction.environment, type: type,
                    originalTransactionId: transaction.originalTransactionId,
                    latestTransactionId: transaction.transactionId, purchaseDate: transaction.purchaseDate,
                    expiresDate: transaction.expiresDate, isActive: transaction.expiresDate.map { $0 > now } ?? false)
            case .consumable:
                let place = Place(environment: transaction.environment, key: transaction.productId)
                var sum = units[place] ?? ConsumableUnits(productId: transaction.productId,
                                                          environment: transaction.environment, units: 0,
                                                          transactions: 0, lastPurchaseDate: transaction.purchaseDate)
                sum.units += transaction.quantity
                sum.transactions += 1
                sum.lastPurchaseDate = max(sum.lastPurchaseDate, transaction.purchaseDate)
                units[place] = sum
            case .nonRenewingSubscription:
                nonRenewing.append(NonRenewingPurchase(productId: transaction.productId,
                                                       environment: transaction.environment,
                                                       transactionId: transaction.transactionId,
                                                       purchaseDate: transaction.purchaseDate,
                                                       expiresDate: transaction.expiresDate))
            }
        }
        nonConsumables = owned.values.sorted { ($0.productId, $0.environment.rawValue) < ($1.productId, $1.environment.rawValue) }
        subscriptions = chains.values.sorted {
            ($0.productId, $0.environment.rawValue, $0.originalTransactionId)
                < ($1.productId, $1.environment.rawValue, $1.originalTransactionId)
        }
        consumables = units.values.sorted { ($0.productId, $0.environment.rawValue) < ($1.productId, $1.environment.rawValue) }
        nonRenewing.sort { ($0.purchaseDate, $0.transactionId) > ($1.purchaseDate, $1.transactionId) }
        revoked.sort { ($0.purchaseDate, $0.transactionId) > ($1.purchaseDate, $1.transactionId) }
        unclassified.sort { ($0.purchaseDate, $0.transactionId) > ($1.purchaseDate, $1.transactionId) }
    }

    /// Whether `transaction` expires after `subscription`'s latest (a missing expiry counts as the earliest; the
    /// later purchase decides a tie).
    private static func expiresLater(_ transaction: LedgerTransaction, than subscription: Subscription) -> Bool {
        let new = transaction.expiresDate ?? .distantPast
        let old = subscription.expiresDate ?? .distantPast
        if new != old { return new > old }
        return (transaction.purchaseDate, transaction.transactionId)
            > (subscription.purchaseDate, subscription.latestTransactionId)
    }
}
