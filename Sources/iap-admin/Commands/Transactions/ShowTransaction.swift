import ArgumentParser
import CatalogAPI

extension Transactions {
    /// `transactions show`: one transaction of the ledger and every source that brought it.
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show one transaction of the ledger, with every submission and notification that brought it.",
            discussion: """
                A transaction id is unique per environment: --environment picks one; without it, the Production \
                transaction if there is one, else Sandbox, Xcode, LocalTesting in that order. SOURCES lists \
                the submissions (see purchases show) and App Store notifications that brought it, the first \
                marked as the one that recorded it.

                Examples:
                  admin-cli transactions show 2000000123456789 --app com.example.game
                  admin-cli transactions show 2000000123456789 --environment Sandbox --json
                """)

        @Argument(help: "The App Store's transaction id.")
        var transactionID: String

        @Option(help: ArgumentHelp("The app (default: $IAP_APP or the profile's app).", valueName: "bundle-id"))
        var app: String?

        @Option(help: "The environment of the transaction (default: Production, else Sandbox, Xcode, LocalTesting).")
        var environment: Components.Schemas.StoreEnvironment?

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let session = try Session(global)
            let app = try session.app(app)
            let transaction = try await session.answer({
                try await $0.getTransaction(path: .init(bundleId: app, transactionId: transactionID),
                                            query: .init(environment: environment))
            }) { try $0.ok.body.json }
            await session.show(identifiers: [transaction.transactionId]) {
                Self.details(transaction, app: app, session: session)
            }
        }

        private static func details(_ transaction: Components.Schemas.LedgerTransaction, app: String, session: Session) {
            let console = session.console
            var details = Details()
            details.add("Transaction", "\(console.paint(transaction.transactionId, .bold)) in \(app)")
            details.add("Environment", transaction.environment.rawValue)
            details.add("Original", transaction.originalTransactionId)
            details.add("Product", transaction.productId)
            details.add("Apple type", transaction.appleType)
            details.add("Catalog type", transaction.catalogType?.rawValue ?? "not in the catalog")
            if transaction.catalogMismatch {
                details.add("Catalog", console.paint("mismatch: the catalog lacks the product or has another type", .yellow))
            }
            details.add("Quantity", String(transaction.quantity))
            details.add("Price", Display.price(transaction.price))
            details.add("Storefront", transaction.storefront)
            details.add("Purchased", Display.time(transaction.purchaseDate))
            details.add("First purchased", transaction.originalPurchaseDate.map(Display.time))
            details.add("Expires", transaction.expiresDate.map(Display.time))
            if let revoked = transaction.revocationDate {
                let reason = transaction.revocationReason.map { $0 == 1 ? " (an issue in the app)" : " (another reason)" } ?? ""
                details.add("Refunded", console.paint(Display.time(revoked) + reason, .red))
            }
            details.add("Account", transaction.accountToken ?? "-")
            details.add("Ownership", transaction.inAppOwnershipType)
            details.add("Reason", transaction.transactionReason)
            details.add("Web order line", transaction.webOrderLineItemId)
            details.add("App transaction", transaction.appTransactionId)
            details.add("Version", String(transaction.version))
            details.add("Recorded", Display.time(transaction.createdAt))
            details.add("Updated", Display.time(transaction.updatedAt))
            details.print(on: console)
            guard let sources = transaction.sources, !sources.isEmpty else { return }
            console.print()
            var table = Table("SOURCE", "ID", "ACCOUNT", "AT", "RECORDED IT")
            for source in sources {
                table.add(Table.Cell(source.kind.rawValue), Table.Cell(source.id), Table.Cell(source.accountToken ?? "-"),
                          Table.Cell(Display.time(source.at)), Table.Cell(Display.yesNo(source.recorded)))
            }
            table.print(on: console)
        }
    }
}
