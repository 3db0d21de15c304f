import CatalogAPI
import CatalogCore
import CatalogStore
import Foundation
import PurchaseCore

extension Components.Schemas.PurchaseSubmission {
    /// A submission as the API answers it; `transactions` only where asked (a listing leaves them out).
    init(_ submission: PurchaseSubmission) {
        self.init(
            id: submission.id.lowercaseText, kind: EnumMapping.convert(submission.kind),
            status: EnumMapping.convert(submission.status),
            accountToken: submission.accountToken.isEmpty ? nil : submission.accountToken,
            environment: submission.environment.map { EnumMapping.convert($0) }, attempts: submission.attempts,
            nextAttemptAt: submission.status.isFinal ? nil : submission.nextAttemptAt,
            appleStatus: submission.appleStatus,
            transactions: submission.transactions.map {
                var transaction = Components.Schemas.LedgerTransaction($0.transaction)
                transaction.credited = $0.credited
                transaction.alreadyRecorded = $0.alreadyRecorded
                return transaction
            },
            problems: submission.problems, createdAt: submission.createdAt, updatedAt: submission.updatedAt,
            finishedAt: submission.finishedAt)
    }
}

extension Components.Schemas.LedgerTransaction {
    init(_ transaction: LedgerTransaction, sources: [LedgerSource]? = nil) {
        self.init(
            transactionId: transaction.transactionId, environment: EnumMapping.convert(transaction.environment),
            originalTransactionId: transaction.originalTransactionId, productId: transaction.productId,
            appleType: transaction.appleType, catalogType: transaction.catalogType.map { EnumMapping.convert($0) },
            catalogMismatch: transaction.catalogMismatch, quantity: transaction.quantity,
            purchaseDate: transaction.purchaseDate, originalPurchaseDate: transaction.originalPurchaseDate,
            expiresDate: transaction.expiresDate, revocationDate: transaction.revocationDate,
            revocationReason: transaction.revocationReason,
            price: zip(transaction.price, transaction.currency).map {
                .init(currency: $1, amount: Milliunits.amount($0))
            },
            storefront: transaction.storefront, appTransactionId: transaction.appTransactionId,
            inAppOwnershipType: transaction.inAppOwnershipType, webOrderLineItemId: transaction.webOrderLineItemId,
            transactionReason: transaction.transactionReason,
            accountToken: transaction.accountToken.isEmpty ? nil : transaction.accountToken,
            sources: sources?.map {
                .init(kind: $0.kind == .submission ? .submission : .notification, id: $0.id.lowercaseText,
                      accountToken: $0.accountToken.isEmpty ? nil : $0.accountToken, recorded: $0.recorded, at: $0.at)
            },
            version: transaction.version, createdAt: transaction.createdAt, updatedAt: transaction.updatedAt)
    }
}

extension Components.Schemas.TransactionSummaryRow {
    init(_ row: LedgerSummaryRow) {
        self.init(
            day: row.day, environment: EnumMapping.convert(row.environment), productId: row.productID,
            currency: row.currency, transactions: row.transactions, units: row.units,
            amount: row.currency == nil ? nil : row.amount.map(Milliunits.amount),
            pricedTransactions: row.pricedTransactions, refunds: row.refunds,
            refundedAmount: row.currency == nil ? nil : row.refundedAmount.map(Milliunits.amount))
    }
}

extension Components.Schemas.StoreSettings {
    /// The settings as answered: the shared secret only as whether one is set.
    init(_ settings: StoreSettings) {
        self.init(
            appAppleId: settings.appAppleId.map { Int($0) }, sharedSecretSet: settings.sharedSecret != nil,
            environments: settings.sortedEnvironments.compactMap { .init(rawValue: $0) },
            acceptXcode: settings.acceptXcode, manyStoreAccountsLimit: settings.manyStoreAccountsLimit,
            manyStoreAccountsWindowHours: settings.manyStoreAccountsWindowHours, version: settings.version,
            updatedAt: settings.updatedAt)
    }
}

extension StoreSettingsUpdate {
    init(_ body: Components.Schemas.StoreSettingsUpdate) {
        self.init(
            appAppleId: body.appAppleId.map { Int64($0) }, sharedSecret: body.sharedSecret.map(AppStoreSharedSecret.init),
            clearSharedSecret: body.clearSharedSecret ?? false,
            environments: body.environments?.map { AppStoreEnvironment(rawValue: $0.rawValue) ?? .xcode },
            acceptXcode: body.acceptXcode, manyStoreAccountsLimit: body.manyStoreAccountsLimit,
            manyStoreAccountsWindowHours: body.manyStoreAccountsWindowHours)
    }
}

/// Apple's prices, in milliunits of a currency, as the API's decimal amounts (`990` → `"0.99"`).
enum Milliunits {
    static func amount(_ milliunits: Int64) -> String {
        let negative = milliunits < 0
        let magnitude = milliunits.magnitude
        var text = "\(magnitude / 1000)"
        var fraction = String(magnitude % 1000)
        fraction = String(repeating: "0", count: 3 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        if !fraction.isEmpty { text += "." + fraction }
        return negative ? "-" + text : text
    }
}

private func zip<A, B>(_ a: A?, _ b: B?) -> (A, B)? {
    guard let a, let b else { return nil }
    return (a, b)
}
