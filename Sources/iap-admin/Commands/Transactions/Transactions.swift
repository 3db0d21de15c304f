import ArgumentParser
import CatalogAPI
import Foundation

/// `transactions`: the ledger, one row per App Store transaction and environment.
struct Transactions: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List, show, export and sum up the ledger: every App Store transaction of an app.",
        discussion: """
            The ledger holds one row per transaction and environment, however many submissions and notifications \
            brought it: what was bought, when, for which account, at which price, and whether it was refunded. \
            A product the catalog does not have, or of another type, is recorded all the same and flagged \
            (catalog mismatch). Production, Sandbox, Xcode and LocalTesting are never added together. Admin, \
            developer and auditor keys; the app comes from --app, $IAP_APP or the profile.

            Examples:
              admin-cli transactions list --environment Production --since 2026-11-01
              admin-cli transactions show 2000000123456789
              admin-cli transactions export --format csv --out ledger.csv --since 2026-01-01 --until 2027-01-01
              admin-cli transactions summary --environment Production --since 2026-11-01
            """,
        subcommands: [List.self, Show.self, Export.self, Summary.self])

    /// Transactions as a table, in the order given.
    static func table(_ transactions: [Components.Schemas.LedgerTransaction]) -> Table {
        var table = Table("TRANSACTION ID", "ENVIRONMENT", "PRODUCT", "QTY", "PRICE", "PURCHASED", "ACCOUNT", "NOTE")
        for transaction in transactions {
            table.add(Table.Cell(transaction.transactionId), environment(transaction.environment),
                      Table.Cell(transaction.productId), Table.Cell(String(transaction.quantity)),
                      Table.Cell(Display.price(transaction.price)), Table.Cell(Display.time(transaction.purchaseDate)),
                      Table.Cell(transaction.accountToken ?? "-"), note(transaction))
        }
        return table
    }

    /// What sets a transaction apart: refunded (red), a catalog mismatch (yellow), when a subscription expires.
    static func note(_ transaction: Components.Schemas.LedgerTransaction) -> Table.Cell {
        var notes: [String] = []
        if let revoked = transaction.revocationDate { notes.append("refunded \(Display.time(revoked))") }
        if transaction.catalogMismatch { notes.append("catalog mismatch") }
        if let expires = transaction.expiresDate { notes.append("expires \(Display.time(expires))") }
        let style: Style? = transaction.revocationDate != nil ? .red : transaction.catalogMismatch ? .yellow : nil
        return Table.Cell(notes.isEmpty ? "" : notes.joined(separator: "; "), style)
    }

    /// Production plain, every test environment dim: a glance tells real money from test purchases.
    static func environment(_ environment: Components.Schemas.StoreEnvironment) -> Table.Cell {
        Table.Cell(environment.rawValue, environment == .production ? nil : .dim)
    }
}

/// The filters of the ledger's query, shared by `transactions list` and `transactions export`.
struct TransactionFilters: ParsableArguments {
    @Option(help: ArgumentHelp("Only this account's transactions: its token (a UUID, or the applicationUsername layout).",
                               valueName: "token"))
    var account: String?

    @Option(name: .customLong("original-transaction"),
            help: ArgumentHelp("Only the transactions of this original transaction (a subscription's renewals, say).",
                               valueName: "id"))
    var originalTransaction: String?

    @OptionGroup var slice: LedgerSlice

    /// The API's query for these filters.
    func query(order: Operations.ListTransactions.Input.Query.OrderPayload?, cursor: String? = nil, limit: Int? = nil)
        -> Operations.ListTransactions.Input.Query
    {
        .init(accountToken: account, productId: slice.product, originalTransactionId: originalTransaction,
              environment: slice.environment, since: slice.since?.date, until: slice.until?.date, order: order,
              cursor: cursor, limit: limit)
    }
}

/// The part of the ledger that every `transactions` command but `show` may narrow to: a product, an
/// environment, a span of purchase dates.
struct LedgerSlice: ParsableArguments {
    @Option(help: ArgumentHelp("Only this product's transactions.", valueName: "product-id"))
    var product: String?

    @Option(help: "Only this environment's transactions.")
    var environment: Components.Schemas.StoreEnvironment?

    @Option(help: ArgumentHelp("Only purchases at or after this instant: RFC 3339 or a day (2026-11-01, in UTC).", valueName: "time"))
    var since: TimeArgument?

    @Option(help: ArgumentHelp("Only purchases before this instant: RFC 3339 or a day.", valueName: "time"))
    var until: TimeArgument?
}
