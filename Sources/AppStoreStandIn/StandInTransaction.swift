import Foundation
import PurchaseCore

extension AppStoreTransaction {
    /// A transaction as the App Store writes one for a new purchase, with the fields the benchmark's
    /// `gen_transactions.py` gives (storefront USA, PURCHASED, PURCHASE), for the stand-in and tests.
    /// An auto-renewable subscription also gets `webOrderLineItemId`, `subscriptionGroupIdentifier` and an
    /// `expiresDate` a month after `purchaseDate`, as Apple's do.
    public static func standIn(
        bundleId: String,
        productId: String,
        type: AppStoreProductType,
        environment: AppStoreEnvironment = .sandbox,
        transactionId: String = StandInIdentifiers.transactionId(),
        originalTransactionId: String? = nil,
        appAccountToken: UUID? = nil,
        price: Int64? = 990,
        currency: String? = "USD",
        quantity: Int = 1,
        purchaseDate: AppStoreDate = AppStoreDate(Date()),
        expiresDate: AppStoreDate? = nil,
        signedDate: AppStoreDate = AppStoreDate(Date())
    ) -> AppStoreTransaction {
        var transaction = AppStoreTransaction()
        transaction.transactionId = transactionId
        transaction.originalTransactionId = originalTransactionId ?? transactionId
        transaction.bundleId = bundleId
        transaction.productId = productId
        transaction.purchaseDate = purchaseDate
        transaction.originalPurchaseDate = purchaseDate
        if type == .autoRenewableSubscription {
            transaction.webOrderLineItemId = "1" + transactionId.dropFirst()
            transaction.subscriptionGroupIdentifier = "21000042"
            transaction.expiresDate =
                expiresDate ?? AppStoreDate(millisecondsSince1970: purchaseDate.millisecondsSince1970 + 30 * 86_400_000)
        } else {
            transaction.expiresDate = expiresDate
        }
        transaction.quantity = quantity
        transaction.type = type
        transaction.appAccountToken = appAccountToken
        transaction.inAppOwnershipType = .purchased
        transaction.signedDate = signedDate
        transaction.environment = environment.rawValue
        transaction.transactionReason = .purchase
        transaction.storefront = "USA"
        transaction.storefrontId = "143441"
        transaction.price = price
        transaction.currency = currency
        return transaction
    }
}

/// Identifiers the stand-in makes up.
public enum StandInIdentifiers {
    /// A new 16-digit transaction identifier, as Apple's are: "2", the current time in tenths of a second
    /// (modulo 10^8) and 7 random digits, so that identifiers made a moment apart do not collide.
    public static func transactionId() -> String {
        let tenths = UInt64(Date().timeIntervalSince1970 * 10) % 100_000_000
        let random = UInt64.random(in: 0..<10_000_000)
        return "2" + String(tenths).leftPadded(to: 8) + String(random).leftPadded(to: 7)
    }
}
