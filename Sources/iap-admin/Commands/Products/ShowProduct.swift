import ArgumentParser
import CatalogAPI
import Foundation

extension Products {
    /// `products show`: one product, its live and draft revisions side by side, and what approval still needs.
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show a product: state, next actions, live and draft side by side, what approval needs.",
            discussion: """
                LIVE is the revision buyers see (once the product passed review); DRAFT is what the next review \
                will see. Rows that differ are marked "changed". "Missing for approval" lists, item by item, what \
                `approve` still needs. The version is what --if-match takes. --as-of shows the product as it was at \
                an instant in the past, rebuilt from its history (nothing can be done to a past product, so no \
                next actions).

                Examples:
                  admin-cli products show coins.100 --app com.example.game
                  admin-cli products show coins.100 --as-of 2026-11-01T12:00:00Z
                """)

        @Argument(help: "The product's identifier.")
        var productID: String

        @Option(help: "The app's bundle id (default: $IAP_APP or the profile's app).")
        var app: String?

        @Option(name: .customLong("as-of"), help: ArgumentHelp("Show it as it was then: RFC 3339, or a day (its start, UTC).", valueName: "time"))
        var asOf: TimeArgument?

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let session = try Session(global)
            let app = try session.app(app)
            let product = try await session.fetchProduct(productID, app: app, asOf: asOf?.date)
            await session.show(identifiers: [product.productId]) {
                // Groups read better by name than by id; a failure to list them only costs the names.
                let groupIDs = [product.subscriptionGroupId, product.live?.subscriptionGroupId, product.draft?.subscriptionGroupId]
                var groupNames: [String: String] = [:]
                if groupIDs.contains(where: { $0 != nil }), let groups = try? await session.fetchGroups(app: app) {
                    for group in groups { groupNames[group.id] = group.referenceName }
                }
                if let asOf { session.console.print(session.console.paint("As of \(Display.time(asOf.date)), rebuilt from the history:", .bold)) }
                ProductView.print(product, app: app, groupNames: groupNames, on: session.console)
            }
        }
    }
}
