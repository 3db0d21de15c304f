import ArgumentParser
import CatalogAPI
import OpenAPIRuntime

extension History {
    /// `history [list] [PRODUCT_ID]`: one product's story, or events across the catalog, filtered.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List history events: one product's, oldest first, or any, filtered, newest first.",
            discussion: """
                With PRODUCT_ID, the product's events (its app from --app, $IAP_APP or the profile), oldest first. \
                Without, events across every app your key may see (or --app's), newest first. Filters combine; \
                --order reverses. Shows the first 50 unless --limit or --all say otherwise.

                Examples:
                  admin-cli history coins.100 --app com.example.game --all
                  admin-cli history --actor "Alice (PM)" --since 2026-11-01 --until 2026-12-01
                  admin-cli history --state rejected --order oldest --json
                """)

        @Argument(help: "A product's identifier, for its history alone.")
        var productID: String?

        @OptionGroup(title: "Filters")
        var filters: HistoryFilters

        @OptionGroup var pages: PageOptions

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let session = try Session(global)
            var app = filters.app
            if productID != nil { app = try session.app(filters.app) }
            let (events, more) = try await pages.collect(session) { cursor, size in
                try await page(session: session, app: app, cursor: cursor, size: size)
            }
            let console = session.console
            await session.show(json: .nothing, identifiers: events.map { String($0.sequence) }) {
                guard !events.isEmpty else { return console.note("No events match.") }
                History.table(events, showProduct: productID == nil).print(on: console)
                pages.noteMore(more, shown: events.count, noun: "events", session: session)
            }
        }

        /// One page: a product's own history when nothing else narrows it (the route that also knows deleted
        /// products), otherwise the filtered history.
        private func page(session: Session, app: String?, cursor: String?, size: Int)
            async throws -> (items: [Components.Schemas.HistoryEvent], next: String?)
        {
            if let productID, let app, !filters.narrowsEvents, (filters.order ?? .oldest) == .oldest {
                let page = try await session.answer({
                    try await $0.getProductHistory(path: .init(bundleId: app, productId: productID),
                                                   query: .init(cursor: cursor, limit: size))
                }) { try $0.ok.body.json }
                return (page.items, page.nextCursor)
            }
            let query = filters.query(app: app, productID: productID, order: productID == nil ? .newest : .oldest,
                                      cursor: cursor, limit: size)
            return try await session.answer({
                try await $0.listHistory(query: query, headers: .init(accept: [.init(contentType: .json)]))
            }) { output in
                switch try output.ok.body {
                case .json(let page): return (page.items, page.nextCursor)
                case .csv, .applicationXNdjson:
                    throw CommandFailure(.serverError, "the server answered an export where a page of JSON was asked for")
                }
            }
        }
    }
}
