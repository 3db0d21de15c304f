import CatalogAPI
import CatalogCore
import Foundation
import PurchaseCore

extension Components.Schemas.Account {
    /// One account as answered: the token as asked (lowercase), the account it stands for, what it owns at
    /// `at`, and its transactions, newest first.
    init(token: AccountToken, at: Date, entitlements: AccountEntitlements, transactions: [LedgerTransaction]) {
        self.init(
            accountToken: token.text, accountKey: token.accountKeyText, at: at,
            entitlements: .init(
                nonConsumables: entitlements.nonConsumables.map {
                    .init(productId: $0.productId, environment: EnumMapping.convert($0.environment),
                          transactionId: $0.transactionId, originalTransactionId: $0.originalTransactionId,
                          purchaseDate: $0.purchaseDate)
                },
                subscriptions: entitlements.subscriptions.map {
                    .init(productId: $0.productId, environment: EnumMapping.convert($0.environment),
                          _type: EnumMapping.convert($0.type), originalTransactionId: $0.originalTransactionId,
                          latestTransactionId: $0.latestTransactionId, purchaseDate: $0.purchaseDate,
                          expiresDate: $0.expiresDate, active: $0.isActive)
                },
                consumables: entitlements.consumables.map {
                    .init(productId: $0.productId, environment: EnumMapping.convert($0.environment), units: $0.units,
                          transactions: $0.transactions, lastPurchaseDate: $0.lastPurchaseDate)
                },
                nonRenewing: entitlements.nonRenewing.map {
                    .init(productId: $0.productId, environment: EnumMapping.convert($0.environment),
                          transactionId: $0.transactionId, purchaseDate: $0.purchaseDate, expiresDate: $0.expiresDate)
                }),
            revoked: entitlements.revoked.map(Components.Schemas.ExcludedTransaction.init),
            unclassified: entitlements.unclassified.map(Components.Schemas.ExcludedTransaction.init),
            transactions: transactions.map { .init($0) })
    }
}

extension Components.Schemas.ExcludedTransaction {
    init(_ excluded: AccountEntitlements.Excluded) {
        self.init(productId: excluded.productId, environment: EnumMapping.convert(excluded.environment),
                  transactionId: excluded.transactionId, purchaseDate: excluded.purchaseDate,
                  revocationDate: excluded.revocationDate, revocationReason: excluded.revocationReason)
    }
}

extension Components.Schemas.Signal {
    init(_ signal: AccountSignal) {
        self.init(
            id: String(signal.id), kind: EnumMapping.convert(signal.kind),
            accountToken: signal.accountToken.isEmpty ? nil : signal.accountToken,
            otherAccountToken: signal.otherAccountToken, environment: EnumMapping.convert(signal.environment),
            transactionId: signal.transactionId, productId: signal.productId, storeAccounts: signal.storeAccounts,
            storeAccountCount: signal.storeAccountCount, limit: signal.limit, windowHours: signal.windowHours,
            revocationDate: signal.revocationDate, revocationReason: signal.revocationReason,
            source: .init(kind: signal.sourceKind == "notification" ? .notification : .submission,
                          id: signal.sourceId.lowercaseText),
            raisedAt: signal.raisedAt)
    }
}
