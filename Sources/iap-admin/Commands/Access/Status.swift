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
        let readiness = try await session.call { try await $0.getReadiness() }
        var notReady: CommandFailure?
        switch readiness {
        case .ok(let ok):
            switch ok.body {
            case .json(let health):
                details.add("Health", console.paint("ready", .green) + (health.schemaVersion.map { ", schema version \($0)" } ?? ""))
            }
        case .default(let status, let problem):
            notReady = session.failure(status, problem)
            details.add("Health", console.paint("not ready", .red) + ": \(notReady?.message ?? "HTTP \(status)")")
        }
        json.append(("health", session.lastBody ?? Data("null".utf8)))

        var refused: CommandFailure?
        if let keySource = endpoint.keySource, notReady == nil {
            switch try await session.call({ try await $0.getCurrentKey() }) {
            case .ok(let ok):
                switch ok.body {
                case .json(let key):
                    details.add("Key", "\(console.paint(key.name, .bold)) (from \(keySource))")
                    details.add("Role", key.role.rawValue)
                    details.add("Apps", Display.apps(key.apps))
                    if let expires = key.expiresAt { details.add("Expires", Display.time(expires)) }
                }
            case .default(let status, let problem):
                refused = session.failure(status, problem)
                details.add("Key", console.paint("refused", .red) + " (from \(keySource)): \(refused?.message ?? "")")
            }
            json.append(("key", session.lastBody ?? Data("null".utf8)))
        } else if endpoint.keySource == nil {
            details.add("Key", "none: only public routes (identifiers, health); run admin-cli login")
        }
        details.add("Profile", "\(endpoint.profileName) in \(endpoint.configLocation.path)")
        if let app = endpoint.app, let source = endpoint.appSource { details.add("App", "\(app) (from \(source))") }

        switch session.format {
        case .json:
            var document = Data("{".utf8)
            for (index, (name, body)) in json.enumerated() {
                document += Data(((index == 0 ? "" : ",") + "\"\(name)\":").utf8) + (body.isEmpty ? Data("null".utf8) : body)
            }
            console.printRaw(document + Data("}".utf8))
        case .quiet: break
        case .human: details.print(on: console)
        }
        if var failure = notReady ?? refused {
            failure.body = nil
            throw failure
        }
    }
}
