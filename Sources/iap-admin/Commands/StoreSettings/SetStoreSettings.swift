import ArgumentParser
import CatalogAPI
import Foundation

extension StoreSettings {
    /// `store-settings set`: changes what is given and keeps the rest.
    struct Change: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Change an app's store settings: only what is given; the rest stays as it is.",
            discussion: """
                The shared secret (verifyReceipt's app-specific shared secret, from App Store Connect) is read \
                with --shared-secret-stdin: typed at a prompt without echo on a terminal, or piped. It is never \
                a flag (a flag shows in the process list and the shell history), and never printed back: the \
                answer says only that a secret is set. --clear-shared-secret removes it. The history records that \
                the secret was set, changed or removed, never what it is.

                The command reads the settings and writes them back with your changes (the API replaces them \
                whole), only if they are still as read: when another admin changed them in between, nothing is \
                changed (exit 67) and the command can be run again.

                Examples:
                  admin-cli store-settings set --app com.example.game --app-apple-id 1234567890
                  admin-cli store-settings set --environments Production --accept-xcode false
                  admin-cli store-settings set --many-store-accounts-limit 5 --many-store-accounts-window-hours 168
                  admin-cli store-settings set --shared-secret-stdin           # asks, without echo
                  pass show appstore/shared-secret | admin-cli store-settings set --shared-secret-stdin
                """)

        @Option(help: ArgumentHelp("The app (default: $IAP_APP or the profile's app).", valueName: "bundle-id"))
        var app: String?

        @Option(name: .customLong("app-apple-id"), help: ArgumentHelp("The app's Apple ID in App Store Connect.", valueName: "n"))
        var appAppleID: Int?

        @Flag(name: .customLong("clear-app-apple-id"), help: "Remove the app's Apple ID.")
        var clearAppAppleID = false

        @Option(help: ArgumentHelp("The environments whose purchases are accepted: Production, Sandbox or both, comma-separated.",
                                   valueName: "list"))
        var environments: EnvironmentList?

        @Option(name: .customLong("accept-xcode"), help: ArgumentHelp("Whether Xcode-signed transactions (local StoreKit testing) are accepted.",
                                                                     valueName: "true|false"))
        var acceptXcode: Bool?

        @Option(name: .customLong("many-store-accounts-limit"),
                help: ArgumentHelp("Signal manyStoreAccounts when one account's purchases within the window come from more App Store accounts than this (1-1000).",
                                   valueName: "n"))
        var manyStoreAccountsLimit: Int?

        @Option(name: .customLong("many-store-accounts-window-hours"),
                help: ArgumentHelp("The window of manyStoreAccounts, in hours before each purchase (1-8784).", valueName: "hours"))
        var manyStoreAccountsWindowHours: Int?

        @Flag(name: .customLong("shared-secret-stdin"), help: "Read a new shared secret from stdin (a prompt without echo at a terminal).")
        var sharedSecretFromInput = false

        @Flag(name: .customLong("clear-shared-secret"), help: "Remove the shared secret.")
        var clearSharedSecret = false

        // Whatever else is on the command line: refused without being repeated, since it may be a secret
        // someone tried to pass as a flag (ArgumentParser's own message would print it).
        @Argument(parsing: .allUnrecognized, help: .hidden)
        var unexpected: [String] = []

        @OptionGroup var global: GlobalOptions

        func validate() throws {
            guard unexpected.isEmpty else {
                let options = unexpected.filter { $0.hasPrefix("-") }.map { String($0.prefix { $0 != "=" }) }
                throw ValidationError("""
                    unexpected \(options.isEmpty ? "arguments" : "arguments (\(options.joined(separator: ", ")))"), not \
                    repeated here in case one is a secret; a shared secret is never given on the command line: use \
                    --shared-secret-stdin
                    """)
            }
            if appAppleID == nil, !clearAppAppleID, environments == nil, acceptXcode == nil, manyStoreAccountsLimit == nil,
               manyStoreAccountsWindowHours == nil, !sharedSecretFromInput, !clearSharedSecret {
                throw ValidationError("""
                    nothing to change: give --app-apple-id, --environments, --accept-xcode, --many-store-accounts-limit, \
                    --many-store-accounts-window-hours, --shared-secret-stdin or a --clear- option
                    """)
            }
            if sharedSecretFromInput && clearSharedSecret {
                throw ValidationError("--shared-secret-stdin and --clear-shared-secret cannot be used together")
            }
            if appAppleID != nil && clearAppAppleID {
                throw ValidationError("--app-apple-id and --clear-app-apple-id cannot be used together")
            }
            if let appAppleID, appAppleID < 1 { throw ValidationError("--app-apple-id must be a positive number") }
        }

        func run() async throws {
            let session = try Session(global)
            let app = try session.app(app)
            // The secret first: nothing is asked of the server before the person has typed it.
            var secret: String?
            if sharedSecretFromInput {
                guard let text = Prompt.secret("Shared secret for \(app) (not shown): ", console: session.console),
                      !text.isEmpty
                else { throw ValidationError("no shared secret given: type it at the prompt or pipe it on stdin") }
                secret = text
            }
            let current = try await session.answer({ try await $0.getStoreSettings(path: .init(bundleId: app)) }) {
                try $0.ok.body.json
            }
            let update = Components.Schemas.StoreSettingsUpdate(
                appAppleId: clearAppAppleID ? nil : appAppleID ?? current.appAppleId,
                sharedSecret: secret,
                clearSharedSecret: clearSharedSecret ? true : nil,
                environments: (environments?.names ?? current.environments.map(\.rawValue)).compactMap {
                    Components.Schemas.StoreSettingsUpdate.EnvironmentsPayloadPayload(rawValue: $0)
                },
                acceptXcode: acceptXcode ?? current.acceptXcode,
                manyStoreAccountsLimit: manyStoreAccountsLimit ?? current.manyStoreAccountsLimit,
                manyStoreAccountsWindowHours: manyStoreAccountsWindowHours ?? current.manyStoreAccountsWindowHours)
            let settings: Components.Schemas.StoreSettings
            do throws(CommandFailure) {
                settings = try await session.answer({
                    try await $0.putStoreSettings(path: .init(bundleId: app),
                                                  headers: .init(ifMatch: EntityTag.header(String(current.version))),
                                                  body: .json(update))
                }) { try $0.ok.body.json }
            } catch {
                var failure = error
                if session.lastStatus == 412 {
                    failure.hint = "another admin changed the store settings since they were read; nothing was changed: run the command again"
                }
                throw failure
            }
            let headline = settings.version == current.version
                ? "Nothing changed in the store settings of \(app)."
                : "Updated the store settings of \(session.console.paint(app, .bold)) (version \(settings.version))."
            await StoreSettings.show(settings, app: app, headline: headline, session: session)
        }
    }
}

/// `--environments Production,Sandbox`: the App Store environments a store setting accepts, in the API's
/// spelling, each once; case does not matter.
struct EnvironmentList: ExpressibleByArgument, Sendable {
    static let accepted = ["Production", "Sandbox"]

    let names: [String]

    init?(argument: String) {
        var names: [String] = []
        for part in argument.split(separator: ",") {
            let word = part.trimmingCharacters(in: .whitespaces)
            guard let name = Self.accepted.first(where: { $0.lowercased() == word.lowercased() }) else { return nil }
            if !names.contains(name) { names.append(name) }
        }
        guard !names.isEmpty else { return nil }
        self.names = names
    }

    static var allValueStrings: [String] { ["Production", "Sandbox", "Production,Sandbox"] }

    static var defaultCompletionKind: CompletionKind { .list(allValueStrings) }
}
