import ArgumentParser
import CatalogAPI
import Foundation

/// `status`: is the server there and ready, and who am I to it.
struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the server's health and who your key is: name, role and apps.",
        discussion: """
            Checks GET /v1/health/ready (no key needed), then GET /v1/me with the configured key, and says \
            where the URL and the key came from. Exits 69 when the server is unreachable or not ready, 77 when \
            the key is refused. With --json: {"health": ..., "key": ...}, each the API's answer as received.

            Example:
              admin-cli status --profile staging
            """)

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let session = try Session(global, needsKey: false)
        let console = session.console
        let endpoint = session.endpoint
        var details = Details()
        details.add("Server", "\(endpoint.url.absoluteString) (from \(endpoint.urlSource))")

        var json: [(String, Data)] = []
        var notReady: CommandFailure?
        switch try await session.outcome({ try await $0.getReadiness() }, { try $0.ok.body.json }) {
        case .success(let health):
            details.add("Health", console.paint("ready", .green) + (health.schemaVersion.map { ", schema version \($0)" } ?? ""))
        case .failure(let failure):
            notReady = failure
            details.add("Health", console.paint("not ready", .red) + ": \(failure.message)")
        }
        json.append(("health", session.lastBody ?? Data("null".utf8)))

        var refused: CommandFailure?
        if let keySource = endpoint.keySource, notReady == nil {
            switch try await session.outcome({ try await $0.getCurrentKey() }, { try $0.ok.body.json }) {
            case .success(let key):
                details.add("Key", "\(console.paint(key.name, .bold)) (from \(keySource))")
                details.add("Role", key.role.rawValue)
                details.add("Apps", Display.apps(key.apps))
                if let expires = key.expiresAt { details.add("Expires", Display.time(expires)) }
            case .failure(let failure):
                refused = failure
                details.add("Key", console.paint("refused", .red) + " (from \(keySource)): \(failure.message)")
            }
            json.append(("key", session.lastBody ?? Data("null".utf8)))
        } else if endpoint.keySource == nil {
            details.add("Key", "none: only public routes (identifiers, health); run admin-cli login")
        }
        details.add("Profile", "\(endpoint.profileName) in \(endpoint.configLocation.path)")
        if let app = endpoint.app, let source = endpoint.appSource { details.add("App", "\(app) (from \(source))") }

        var document = Data("{".utf8)
        for (index, (name, body)) in json.enumerated() {
            document += Data(((index == 0 ? "" : ",") + "\"\(name)\":").utf8) + (body.isEmpty ? Data("null".utf8) : body)
        }
        await session.show(json: .document(document + Data("}".utf8))) { details.print(on: console) }
        if var failure = notReady ?? refused {
            failure.body = nil
            throw failure
        }
    }
}
