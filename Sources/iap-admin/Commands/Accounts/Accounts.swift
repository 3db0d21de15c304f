import ArgumentParser
import CatalogAPI

/// `accounts`: the app's accounts as StoreKit and the ledger know them: tokens and what each owns.
struct Accounts: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Make an account's tokens for StoreKit, and show what an account owns.",
        discussion: """
            The app's backend gives each of its users a token to pass to StoreKit (never the Apple ID, never \
            the account's own name): `applicationUsername` for SKMutablePayment, `appAccountToken` (a UUID) for \
            StoreKit 2. Both come from one HMAC-SHA-256 of the account under the app's secret, so the same account \
            always gets the same tokens, and both name one account in the ledger. Admin and developer keys; the \
            app comes from --app, $IAP_APP or the profile.

            Examples:
              admin-cli accounts token user-42 --app com.example.game
              admin-cli accounts show 3f2504e0-4f89-41d3-9a0c-0305e82c3301
            """,
        subcommands: [Token.self, Show.self])
}

extension Accounts {
    /// `accounts token`: both forms of one account's token.
    struct Token: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "token",
            abstract: "Print both forms of an account's token: applicationUsername and appAccountToken.",
            discussion: """
                ACCOUNT is the app's own id of the user (a user id, an e-mail address), taken exactly as given. \
                The server hashes it and forgets it: it is never stored, logged or answered. --quiet prints the \
                two tokens, one per line, applicationUsername first.

                Examples:
                  admin-cli accounts token user-42 --app com.example.game
                  admin-cli accounts token user-42 --quiet | tail -1      # the appAccountToken alone
                """)

        @Argument(help: "The app's own id of the account.")
        var account: String

        @Option(help: ArgumentHelp("The app (default: $IAP_APP or the profile's app).", valueName: "bundle-id"))
        var app: String?

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let session = try Session(global)
            let app = try session.app(app)
            let tokens = try await session.answer({
                try await $0.createAccountTokens(path: .init(bundleId: app), body: .json(.init(account: account)))
            }) { try $0.ok.body.json }
            await session.show(identifiers: [tokens.applicationUsername, tokens.appAccountToken]) {
                var details = Details()
                details.add("applicationUsername", tokens.applicationUsername)
                details.add("appAccountToken", tokens.appAccountToken)
                details.print(on: session.console)
            }
        }
    }
}
