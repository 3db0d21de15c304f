import ArgumentParser
import CatalogAPI

/// `products show`: one product, its live and draft revisions side by side, and what approval still needs.
struct ShowProduct: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show a product: state, next actions, live and draft side by side, what approval needs.",
        discussion: """
            LIVE is the revision buyers see (once the product passed review); DRAFT is what the next review \
            will see. Rows that differ are marked "changed". "Missing for approval" lists, item by item, what \
            `approve` still needs. The version is what --if-match takes.

            Example:
              admin-cli products show coins.100 --app com.example.game
            """)

    @Argument(help: "The product's identifier.")
    var productID: String

    @Option(help: "The app's bundle id (default: $IAP_APP or the profile's app).")
    var app: String?

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let session = try Session(global)
        let app = try session.app(app)
        let product = try await session.fetchProduct(productID, app: app)
        switch session.format {
        case .json: session.printJSON()
        case .quiet: session.console.print(product.productId)
        case .human:
            // Groups read better by name than by id; a failure to list them only costs the names.
            let groupIDs = [product.subscriptionGroupId, product.live?.subscriptionGroupId, product.draft?.subscriptionGroupId]
            var groupNames: [String: String] = [:]
            if groupIDs.contains(where: { $0 != nil }), let groups = try? await session.fetchGroups(app: app) {
                for group in groups { groupNames[group.id] = group.referenceName }
            }
            ProductView.print(product, app: app, groupNames: groupNames, on: session.console)
        }
    }
}
