import ArgumentParser
import CatalogAPI

extension Transactions {
    /// `transactions summary`: what finance reconciles, per day, environment, product and currency.
    struct Summary: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "summary",
            abstract: "Sum up the ledger per day of purchase, environment, product and currency.",
            discussion: """
                Per UTC day of purchase, environment, product and currency: the transactions, the units \
                (quantities added up), the amount where Apple gave the price (PRICED says of how many \
                transactions), and the refunds with their amount. Environments are never added together: Sandbox, \
                Xcode and LocalTesting rows stand apart from Production's, and --environment selects one. \
                --since and --until select by purchase date.

                Examples:
                  admin-cli transactions summary --app com.example.game --environment Production --since 2026-11-01
                  admin-cli transactions summary --product coins.100 --json
                """)

        @Option(help: ArgumentHelp("The app (default: $IAP_APP or the profile's app).", valueName: "bundle-id"))
        var app: String?

        @OptionGroup(title: "Filters")
        var slice: LedgerSlice

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let session = try Session(global)
            let app = try session.app(app)
            let summary = try await session.answer({
                try await $0.getTransactionSummary(path: .init(bundleId: app), query: .init(
                    environment: slice.environment, productId: slice.product, since: slice.since?.date,
                    until: slice.until?.date))
            }) { try $0.ok.body.json }
            let console = session.console
            await session.show {
                guard !summary.rows.isEmpty else { return console.note("No transactions match.") }
                var table = Table("DAY", "ENVIRONMENT", "PRODUCT", "CURRENCY", "TRANSACTIONS", "UNITS", "AMOUNT", "PRICED",
                                  "REFUNDS", "REFUNDED")
                for row in summary.rows {
                    table.add(Table.Cell(row.day), Transactions.environment(row.environment), Table.Cell(row.productId),
                              Table.Cell(row.currency ?? "-"), Table.Cell(String(row.transactions)),
                              Table.Cell(String(row.units)), Table.Cell(row.amount ?? "-"),
                              Table.Cell(row.pricedTransactions.map(String.init) ?? "-"),
                              Table.Cell(String(row.refunds), row.refunds > 0 ? .red : nil),
                              Table.Cell(row.refundedAmount ?? "-"))
                }
                table.print(on: console)
            }
        }
    }
}
