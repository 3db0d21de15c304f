import ArgumentParser
import CatalogAPI

/// `store-settings`: what purchase verification uses for an app, for admins.
struct StoreSettings: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store-settings",
        abstract: "Show and change an app's store settings: what purchase verification uses (admin keys only).",
        discussion: """
            Per app: its Apple ID in App Store Connect, the environments whose purchases it accepts (Production, \
            Sandbox), whether Xcode-signed transactions (local StoreKit testing) are accepted, verifyReceipt's \
            app-specific shared secret, and when one account's purchases from many App Store accounts raise the \
            manyStoreAccounts signal. The secret is write-only: it is read from stdin (a prompt without echo at \
            a terminal), never from a flag, and never shown, logged or exported; `show` says only whether one is \
            set. The app comes from --app, $IAP_APP or the profile.

            Examples:
              admin-cli store-settings show --app com.example.game
              admin-cli store-settings set --app-apple-id 1234567890 --environments Production,Sandbox
              admin-cli store-settings set --shared-secret-stdin < shared-secret.txt
            """,
        subcommands: [Show.self, Change.self])

    /// How the settings are printed after they were read or written.
    static func show(_ settings: Components.Schemas.StoreSettings, app: String, headline: String?, session: Session) async {
        await session.show(identifiers: [app]) {
            let console = session.console
            if let headline { console.print(headline) }
            var details = Details()
            details.add("App", app)
            details.add("App Apple ID", settings.appAppleId.map(String.init) ?? "-")
            details.add("Environments", settings.environments.map(\.rawValue).joined(separator: ", "))
            details.add("Accept Xcode", Display.yesNo(settings.acceptXcode))
            details.add("Shared secret", settings.sharedSecretSet ? "set (never shown)" : "not set")
            details.add("Many accounts", "signalled above \(settings.manyStoreAccountsLimit) App Store accounts "
                + "within \(settings.manyStoreAccountsWindowHours) h")
            details.add("Version", settings.version == 0 ? "0 (the defaults)" : String(settings.version))
            details.add("Updated", settings.updatedAt.map(Display.time))
            details.print(on: console)
        }
    }
}

extension StoreSettings {
    /// `store-settings show`.
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show an app's store settings, and whether a shared secret is set (never the secret).",
            discussion: """
                An app never configured shows the defaults (version 0): Production and Sandbox accepted, Xcode \
                not, no Apple ID, no shared secret, manyStoreAccounts above 3 App Store accounts within 720 hours.

                Example:
                  admin-cli store-settings show --app com.example.game
                """)

        @Option(help: ArgumentHelp("The app (default: $IAP_APP or the profile's app).", valueName: "bundle-id"))
        var app: String?

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let session = try Session(global)
            let app = try session.app(app)
            let settings = try await session.answer({ try await $0.getStoreSettings(path: .init(bundleId: app)) }) {
                try $0.ok.body.json
            }
            await StoreSettings.show(settings, app: app, headline: nil, session: session)
        }
    }
}
