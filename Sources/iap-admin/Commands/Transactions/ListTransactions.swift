import ArgumentParser
import CatalogAPI
import OpenAPIRuntime

extension Transactions {
    /// `transactions list`: the ledger, filtered, newest purchase first.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the ledger's transactions, newest purchase first, filtered.",
            discussion: """
                Filters combine; --since and --until select by purchase date. Shows the first 50 unless --limit \
                or --all say otherwise; --order oldest reverses.

                Examples:
                  admin-cli transactions list --app com.example.game --environment Production --since 2026-11-01
                  admin-cli transactions list --account 3f2504e0-4f89-11d3-9a0c-0305e82c3301 --all --quiet
                  admin-cli transactions list --original-transaction 2000000123456789 --order oldest
                """)

        @Option(help: ArgumentHelp("The app (default: $IAP_APP or the profile's app).", valueName: "bundle-id"))
        var app: String?

        @OptionGroup(title: "Filters")
        var filters: TransactionFilters

        @Option(help: "newest (the default) or oldest purchase first.")
        var order: Operations.ListTransactions.Input.Query.OrderPayload?

        @OptionGroup var pages: PageOptions

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let session = try Session(global)
            let app = try session.app(app)
            let (transactions, more) = try await pages.collect(session) { cursor, size in
                try await session.answer({
                    try await $0.listTransactions(path: .init(bundleId: app),
                                                  query: filters.query(order: order, cursor: cursor, limit: size),
                                                  headers: .init(accept: [.init(contentType: .json)]))
                }) { output -> ([Components.Schemas.LedgerTransaction], String?) in
                    switch try output.ok.body {
                    case .json(let page): return (page.items, page.nextCursor)
                    case .csv, .applicationXNdjson:
                        throw CommandFailure(.serverError, "the server answered an export where a page of JSON was asked for")
                    }
                }
            }
            let console = session.console
            await session.show(json: .nothing, identifiers: transactions.map(\.transactionId)) {
                guard !transactions.isEmpty else { return console.note("No transactions match.") }
                Transactions.table(transactions).print(on: console)
                pages.noteMore(more, shown: transactions.count, noun: "transactions", session: session)
            }
        }
    }
}
