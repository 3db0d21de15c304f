import ArgumentParser
import CatalogAPI

extension Accounts {
    /// `accounts show`: what one account owns now, and its transactions.
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show what an account owns now, by the catalog's types, and its transactions.",
            discussion: """
                TOKEN is either form of the account's token. Non-consumables owned, subscriptions with their \
                expiry and whether they are active now, consumables' units, non-renewing purchases with their \
                dates; refunded or revoked transactions grant nothing and are listed apart. Every entitlement \
                names its environment: Sandbox purchases never count as Production's. --quiet prints the \
                account's transaction ids.

                Examples:
                  admin-cli accounts show 3f2504e0-4f89-41d3-9a0c-0305e82c3301 --app com.example.game
                  admin-cli accounts show "$(admin-cli accounts token user-42 --quiet | tail -1)" --json
                """)

        @Argument(help: "The account's token: a UUID, or the applicationUsername layout.")
        var token: String

        @Option(help: ArgumentHelp("The app (default: $IAP_APP or the profile's app).", valueName: "bundle-id"))
        var app: String?

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let session = try Session(global)
            let app = try session.app(app)
            let account = try await session.answer({
                try await $0.getAccount(path: .init(bundleId: app, accountToken: token))
            }) { try $0.ok.body.json }
            await session.show(identifiers: account.transactions.map(\.transactionId)) {
                Self.details(account, app: app, session: session)
            }
        }

        private static func details(_ account: Components.Schemas.Account, app: String, session: Session) {
            let console = session.console
            var details = Details()
            details.add("Account", "\(console.paint(account.accountToken, .bold)) in \(app)")
            details.add("Account key", account.accountKey)
            details.add("As of", Display.time(account.at))
            details.print(on: console)
            let owned = account.entitlements
            var table = Table("OWNS", "PRODUCT", "ENVIRONMENT", "DETAIL", "TRANSACTION")
            for item in owned.nonConsumables {
                table.add(Table.Cell("non-consumable"), Table.Cell(item.productId), Transactions.environment(item.environment),
                          Table.Cell("since \(Display.time(item.purchaseDate))"), Table.Cell(item.transactionId))
            }
            for item in owned.subscriptions {
                let expiry = item.expiresDate.map { (item.active ? "active until " : "expired ") + Display.time($0) }
                    ?? "no expiry"
                table.add(Table.Cell("subscription"), Table.Cell(item.productId), Transactions.environment(item.environment),
                          Table.Cell(expiry, item.active ? .green : .dim), Table.Cell(item.latestTransactionId))
            }
            for item in owned.consumables {
                table.add(Table.Cell("consumable"), Table.Cell(item.productId), Transactions.environment(item.environment),
                          Table.Cell("\(item.units) units in \(item.transactions) purchases"), Table.Cell(""))
            }
            for item in owned.nonRenewing {
                let until = item.expiresDate.map { ", until \(Display.time($0))" } ?? ""
                table.add(Table.Cell("non-renewing"), Table.Cell(item.productId), Transactions.environment(item.environment),
                          Table.Cell("bought \(Display.time(item.purchaseDate))\(until)"), Table.Cell(item.transactionId))
            }
            for item in account.revoked {
                let reason = item.revocationReason.map { $0 == 1 ? " (an issue in the app)" : " (another reason)" } ?? ""
                table.add(Table.Cell("refunded", .red), Table.Cell(item.productId), Transactions.environment(item.environment),
                          Table.Cell("refunded \(item.revocationDate.map(Display.time) ?? "")\(reason)", .red),
                          Table.Cell(item.transactionId))
            }
            for item in account.unclassified {
                table.add(Table.Cell("unknown type", .yellow), Table.Cell(item.productId),
                          Transactions.environment(item.environment), Table.Cell("the catalog and Apple give no type"),
                          Table.Cell(item.transactionId))
            }
            console.print()
            if account.transactions.isEmpty {
                return console.note("No transactions are credited to this account.")
            }
            table.print(on: console)
            console.print()
            Transactions.table(account.transactions).print(on: console)
        }
    }
}
