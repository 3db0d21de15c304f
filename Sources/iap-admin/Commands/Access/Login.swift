import ArgumentParser
import CatalogAPI
import Foundation

/// `login`: checks a key against the server and stores it in a profile of the config file.
struct Login: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check an API key against the server and save it, with the URL, in a profile.",
        discussion: """
            The key comes from --key, else from stdin: typed at a prompt without echo on a terminal, or \
            piped. It is checked with GET /v1/me, never printed, and saved in \
            $XDG_CONFIG_HOME/iap-catalog/config.json (or ~/.config/iap-catalog/config.json), a file only you can \
            read (0600). The URL is --url, else $IAP_URL, else the profile's, else \(Endpoint.defaultURL). \
            --app saves a default app for the profile.

            Examples:
              admin-cli login --url https://catalog.example.com
              admin-cli login --profile staging --url https://staging.example.com --app com.example.game < key.txt
            """)

    @Option(help: "The app commands use by default with this profile.")
    var app: String?

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let console = Console(noColor: global.noColor)
        var endpoint = try Endpoint(options: global, requireProfile: false)
        // The key of a login is the one given now, never one found in the environment or the old profile.
        let key = global.key ?? Prompt.secret("API key for \(endpoint.url.absoluteString): ", console: console)
        guard let key, !key.isEmpty else {
            throw ValidationError("no key given: pass --key, or type or pipe it on stdin")
        }
        endpoint.key = key
        endpoint.keySource = global.key != nil ? .flag("key") : .standardInput
        let session = try Session(endpoint: endpoint, console: console, format: global.format)
        let me: Components.Schemas.Key
        switch try await session.outcome({ try await $0.getCurrentKey() }, { try $0.ok.body.json }) {
        case .success(let key):
            me = key
        case .failure(var failure):
            if session.lastStatus == 401 { failure.hint = "the key is wrong, revoked or expired; nothing was saved" }
            throw failure
        }
        let body = session.lastBody
        if let app {
            // The first login often comes before the app exists: save it anyway, and say so.
            do {
                _ = try await session.fetchApp(app)
            } catch let failure as CommandFailure where failure.status == .notFound {
                console.note(console.paintError("note:", .yellow)
                    + " there is no app \(app) yet (or this key may not see it); create it with: admin-cli apps create \(app) --name NAME")
            }
        }

        var config = try ConfigFile.load(from: endpoint.configLocation)
        let previous = config.profiles[endpoint.profileName]
        config.profiles[endpoint.profileName] = ConfigFile.Profile(
            url: endpoint.url.absoluteString, key: key, app: app ?? (previous?.url == endpoint.url.absoluteString ? previous?.app : nil))
        try config.save(to: endpoint.configLocation)

        await session.show(json: .document(body)) {
            console.print("Logged in to \(endpoint.url.absoluteString) as \(console.paint(me.name, .bold)) (\(me.role.rawValue); apps: \(Display.apps(me.apps))).")
            console.print("Saved profile \"\(endpoint.profileName)\" in \(endpoint.configLocation.path).")
        }
    }
}

/// `logout`: forgets a profile's key (the key itself stays valid on the server until revoked).
struct Logout: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Remove a profile, and its key, from the config file.",
        discussion: """
            The key stays valid on the server: revoke it with `admin-cli keys revoke` if it leaked.

            Example:
              admin-cli logout --profile staging
            """)

    @Option(help: "The profile to remove (default: $IAP_PROFILE or \"default\").")
    var profile: String?

    @Flag(name: .customLong("no-color"), help: "No colour.")
    var noColor = false

    func run() async throws {
        let console = Console(noColor: noColor)
        let environment = ProcessInfo.processInfo.environment
        let name = profile ?? environment["IAP_PROFILE"].flatMap { $0.isEmpty ? nil : $0 } ?? ConfigFile.defaultProfileName
        let location = ConfigFile.location(environment: environment)
        var config = try ConfigFile.load(from: location)
        guard config.profiles.removeValue(forKey: name) != nil else {
            throw CommandFailure.configuration("there is no profile \"\(name)\" in \(location.path)")
        }
        try config.save(to: location)
        console.print("Removed profile \"\(name)\" from \(location.path).")
    }
}
