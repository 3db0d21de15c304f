import ArgumentParser
import CatalogAPI

extension Products {
    /// `products list`: an app's products, filtered, a page at a time behind the scenes.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List an app's products, sorted by productId.",
            discussion: """
                Filters combine. Shows the first 50 unless --limit or --all say otherwise; pages are fetched as \
                needed. With --json, each page the API answered is printed as received, one per line.

                Examples:
                  admin-cli products list --app com.example.game
                  admin-cli products list --state ready-for-sale --type auto-renewable --all
                  admin-cli products list --query coins --quiet | xargs -n1 admin-cli approve
                """)

        @Option(help: "The app's bundle id (default: $IAP_APP or the profile's app).")
        var app: String?

        @Option(help: "Only products in this review state.")
        var state: Components.Schemas.ReviewState?

        @Option(name: .customLong("type"), help: "Only products of this purchase type.")
        var type: Components.Schemas.PurchaseType?

        @Option(help: "Only products whose productId or reference name contains this text (any case).")
        var query: String?

        @OptionGroup var pages: PageOptions

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let session = try Session(global)
            let app = try session.app(app)
            let (products, more) = try await pages.collect(session) { cursor, size in
                let page = try await session.answer({
                    try await $0.listProducts(path: .init(bundleId: app),
                                              query: .init(state: state, _type: type, q: query, cursor: cursor, limit: size))
                }) { try $0.ok.body.json }
                return (page.items, page.nextCursor)
            }
            let console = session.console
            await session.show(json: .nothing, identifiers: products.map(\.productId)) {
                guard !products.isEmpty else {
                    console.note("No products in \(app)\(state != nil || type != nil || query != nil ? " match" : "").")
                    return
                }
                var table = Table("PRODUCT ID", "TYPE", "STATE", "PRICE", "ON SALE", "NAME")
                for product in products {
                    table.add(Table.Cell(product.productId), Table.Cell(product._type.rawValue), Display.state(product.state),
                              Table.Cell(Display.price(product.price)),
                              Table.Cell(Display.yesNo(product.onSale), product.onSale ? .green : nil),
                              Table.Cell(product.referenceName))
                }
                table.print(on: console)
                pages.noteMore(more, shown: products.count, noun: "products", session: session)
            }
        }
    }
}
