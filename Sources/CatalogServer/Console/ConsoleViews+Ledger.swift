import CatalogAPI
import Foundation

// The view models of the ledger's pages (ConsoleRoutes+Transactions.swift): plain data, no markup.

/// One transaction of the ledger, as a row of the list and the head of its own page.
struct TransactionRow: Sendable {
    let transactionID: String
    let href: String
    let environment: String
    /// Production's rows are marked apart from the test environments'.
    let production: Bool
    let productID: String
    let catalogMismatch: Bool
    let quantity: Int
    /// "0.99 USD", when Apple gave the price.
    let price: String?
    let purchasedAt: String
    let expiresAt: String?
    let revokedAt: String?
    let accountToken: String?
}

struct TransactionsPage: Sendable {
    let chrome: ConsoleChrome
    let app: AppRow
    let productID: String
    let accountToken: String
    let originalTransactionID: String
    let since: String
    let until: String
    let environments: [ConsoleOption]
    let oldestFirst: Bool
    let transactions: [TransactionRow]
    let filtered: Bool
    let pager: ConsolePager
    let notice: ConsoleNotice?
}

/// A labelled fact of one transaction.
struct FactRow: Sendable {
    let label: String
    let value: String
}

/// A submission or notification that brought a transaction.
struct SourceRow: Sendable {
    let kind: String
    let id: String
    let accountToken: String?
    /// Whether this source recorded the transaction first (the others added facts, never a second credit).
    let recordedFirst: Bool
    let at: String
}

struct TransactionPage: Sendable {
    let chrome: ConsoleChrome
    let app: AppRow
    let transaction: TransactionRow
    let facts: [FactRow]
    let catalogType: String?
    let appleType: String?
    let sources: [SourceRow]
    let historyHref: String
    let productTransactionsHref: String
}

/// One row of the summary: a UTC day, a product and a currency, in one environment.
struct SummaryRow: Sendable {
    let day: String
    let productID: String
    let currency: String
    let transactions: Int
    let units: Int
    let amount: String
    let pricedTransactions: Int
    let refunds: Int
    let refundedAmount: String
}

/// The summary's rows of one environment and its totals per currency: environments are never added together.
struct SummaryEnvironment: Sendable {
    let environment: String
    let production: Bool
    let rows: [SummaryRow]
    let totals: [Total]

    /// The totals of one currency in one environment ("no price" for the transactions without one).
    struct Total: Sendable {
        let currency: String
        let transactions: Int
        let units: Int
        let amount: String
        let refunds: Int
        let refundedAmount: String
    }

    /// The API's rows, one table per environment in the API's order of environments (Production first).
    static func grouping(_ rows: [Components.Schemas.TransactionSummaryRow]) -> [SummaryEnvironment] {
        Components.Schemas.StoreEnvironment.allCases.compactMap { environment in
            let mine = rows.filter { $0.environment == environment }
            guard !mine.isEmpty else { return nil }
            return SummaryEnvironment(environment: environment.rawValue, production: environment == .production,
                                      rows: mine.map(row), totals: totals(mine))
        }
    }

    private static let noPrice = "no price"

    private static func row(_ row: Components.Schemas.TransactionSummaryRow) -> SummaryRow {
        SummaryRow(day: row.day, productID: row.productId, currency: row.currency ?? noPrice,
                   transactions: row.transactions, units: row.units, amount: row.amount ?? "—",
                   pricedTransactions: row.pricedTransactions ?? 0, refunds: row.refunds,
                   refundedAmount: row.refundedAmount ?? "—")
    }

    /// Each currency's sums over `rows` (one environment's); amounts are added as decimals, never as binary
    /// floating point, so that a total is to the cent what Apple's prices add up to.
    private static func totals(_ rows: [Components.Schemas.TransactionSummaryRow]) -> [Total] {
        let currencies = Array(Set(rows.map { $0.currency ?? noPrice })).sorted()
        return currencies.map { currency in
            let mine = rows.filter { ($0.currency ?? noPrice) == currency }
            func sum(_ amount: (Components.Schemas.TransactionSummaryRow) -> String?) -> String {
                let values = mine.compactMap { amount($0).flatMap { Decimal(string: $0, locale: Locale(identifier: "en_US_POSIX")) } }
                return values.isEmpty ? "—" : "\(values.reduce(0, +))"
            }
            return Total(currency: currency, transactions: mine.reduce(0) { $0 + $1.transactions },
                         units: mine.reduce(0) { $0 + $1.units }, amount: sum(\.amount), refunds: mine.reduce(0) { $0 + $1.refunds },
                         refundedAmount: sum(\.refundedAmount))
        }
    }
}

struct SummaryPage: Sendable {
    let chrome: ConsoleChrome
    let app: AppRow
    let productID: String
    let since: String
    let until: String
    let environments: [ConsoleOption]
    let tables: [SummaryEnvironment]
    let empty: Bool
    let notice: ConsoleNotice?
}
