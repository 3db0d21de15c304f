import CatalogCore
import Foundation

/// What one source (a verified signed transaction, a verified receipt's transaction, a notification) says of
/// one App Store transaction: the facts the ledger merges (``LedgerTransaction/merging(_:account:)``).
///
/// Made from Apple's payloads by the code that verifies them; ``validated()`` keeps only what the ledger can
/// hold, so that the database never refuses a transaction Apple charged for.
public struct TransactionFacts: Sendable, Hashable {
    public var environment: AppStoreEnvironment
    public var transactionId: String
    /// The first transaction of a subscription or a restored purchase; the transaction itself when Apple leaves
    /// it out.
    public var originalTransactionId: String
    public var productId: String
    /// Apple's `type` ("Consumable", ...), as Apple spells it; `nil` when the source does not say (a receipt).
    public var appleType: String?
    /// The catalog's type for Apple's, when Apple's is one the catalog knows.
    public var applePurchaseType: PurchaseType?
    public var quantity: Int
    public var purchaseDate: Date
    public var originalPurchaseDate: Date?
    public var expiresDate: Date?
    public var revocationDate: Date?
    public var revocationReason: Int?
    /// Whether the source says a refund was reversed (REFUND_REVERSED): the revocation is lifted.
    public var refundReversed: Bool
    /// Apple's price in milliunits of `currency`.
    public var price: Int64?
    public var currency: String?
    public var storefront: String?
    public var appTransactionId: String?
    public var inAppOwnershipType: String?
    public var webOrderLineItemId: String?
    public var transactionReason: String?
    /// StoreKit's `appAccountToken`, when the app set one on the purchase.
    public var appAccountToken: String?

    public init(
        environment: AppStoreEnvironment, transactionId: String, originalTransactionId: String? = nil,
        productId: String, appleType: String? = nil, applePurchaseType: PurchaseType? = nil, quantity: Int = 1,
        purchaseDate: Date, originalPurchaseDate: Date? = nil, expiresDate: Date? = nil, revocationDate: Date? = nil,
        revocationReason: Int? = nil, refundReversed: Bool = false, price: Int64? = nil, currency: String? = nil,
        storefront: String? = nil, appTransactionId: String? = nil, inAppOwnershipType: String? = nil,
        webOrderLineItemId: String? = nil, transactionReason: String? = nil, appAccountToken: String? = nil
    ) {
        self.environment = environment
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId ?? transactionId
        self.productId = productId
        self.appleType = appleType
        self.applePurchaseType = applePurchaseType
        self.quantity = quantity
        self.purchaseDate = purchaseDate
        self.originalPurchaseDate = originalPurchaseDate
        self.expiresDate = expiresDate
        self.revocationDate = revocationDate
        self.revocationReason = revocationReason
        self.refundReversed = refundReversed
        self.price = price
        self.currency = currency
        self.storefront = storefront
        self.appTransactionId = appTransactionId
        self.inAppOwnershipType = inAppOwnershipType
        self.webOrderLineItemId = webOrderLineItemId
        self.transactionReason = transactionReason
        self.appAccountToken = appAccountToken
    }

    /// Why facts cannot be recorded at all.
    public enum Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        case missing(String)
        case tooLong(String, limit: Int)

        public var description: String {
            switch self {
            case .missing(let field): "the transaction has no \(field)"
            case .tooLong(let field, let limit): "the transaction's \(field) is longer than \(limit) characters"
            }
        }
    }

    /// The longest identifier the ledger keeps (Apple's are about 20 digits).
    public static let identifierLimit = 200
    /// The longest descriptive value the ledger keeps (a type, a storefront, a reason).
    public static let textLimit = 100

    /// The facts as the ledger can hold them: identifiers present and of a sane length (otherwise a refusal), and
    /// optional values the ledger could not hold left out rather than refusing a transaction Apple charged for (a
    /// price without a currency, a currency that is not ISO 4217, an over-long descriptive value, a negative
    /// quantity, a token that is not one). Dates are kept to the millisecond, as Apple gives them.
    public func validated() throws(Refusal) -> TransactionFacts {
        for (field, value) in [("transactionId", transactionId), ("originalTransactionId", originalTransactionId),
                               ("productId", productId)] {
            guard !value.isEmpty else { throw .missing(field) }
            guard value.count <= Self.identifierLimit else { throw .tooLong(field, limit: Self.identifierLimit) }
        }
        var facts = self
        func short(_ value: String?, _ limit: Int) -> String? {
            guard let value, !value.isEmpty, value.count <= limit else { return nil }
            return value
        }
        facts.appleType = short(appleType, Self.textLimit)
        if facts.appleType == nil { facts.applePurchaseType = nil }
        facts.storefront = short(storefront, Self.textLimit)
        facts.inAppOwnershipType = short(inAppOwnershipType, Self.textLimit)
        facts.transactionReason = short(transactionReason, Self.textLimit)
        facts.appTransactionId = short(appTransactionId, Self.identifierLimit)
        facts.webOrderLineItemId = short(webOrderLineItemId, Self.identifierLimit)
        facts.quantity = min(max(quantity, 0), 1_000_000)
        let isCurrency = currency.map { $0.utf8.count == 3 && $0.utf8.allSatisfy { (0x41...0x5A).contains($0) } } ?? false
        if price == nil || !isCurrency {
            facts.price = nil
            facts.currency = nil
        }
        facts.appAccountToken = appAccountToken.flatMap { AccountToken(parsing: $0)?.text }
        facts.purchaseDate = Self.milliseconds(purchaseDate)
        facts.originalPurchaseDate = originalPurchaseDate.map(Self.milliseconds)
        facts.expiresDate = expiresDate.map(Self.milliseconds)
        facts.revocationDate = revocationDate.map(Self.milliseconds)
        return facts
    }

    private static func milliseconds(_ date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded(.down) / 1000)
    }
}
