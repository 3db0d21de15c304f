import ArgumentParser
import CatalogAPI

extension Products {
    /// `products delete`: removes a product that was never submitted; its productId stays reserved.
    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: "Delete a product that was never submitted (its productId stays reserved).",
            discussion: """
                Asks for confirmation on a terminal; --yes skips the question (and is needed when not on a \
                terminal). A product that was ever submitted cannot be deleted: remove it from sale instead.

                Example:
                  admin-cli products delete coins.test --app com.example.game --yes
                """)

        @Argument(help: "The product's identifier.")
        var productID: String

        @Option(help: "The app's bundle id (default: $IAP_APP or the profile's app).")
        var app: String?

        @Option(name: .customLong("if-match"), help: ArgumentHelp("Delete only if the product is still at this version, else exit 67.", valueName: "version"))
        var ifMatch: String?

        @Flag(name: [.short, .long], help: "Do not ask for confirmation.")
        var yes = false

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let session = try Session(global)
            let app = try session.app(app)
            try Prompt.confirm("Delete \(productID) from \(app)? Its productId stays reserved for ever.",
                               assumeYes: yes, console: session.console)
            try await session.answer({
                try await $0.deleteProduct(path: .init(bundleId: app, productId: productID),
                                           headers: .init(ifMatch: EntityTag.header(ifMatch)))
            }) { _ = try $0.noContent }
            await session.show(json: .nothing, identifiers: [productID]) {
                session.console.print("Deleted \(productID) from \(app); its productId stays reserved.")
            }
        }
    }
}
