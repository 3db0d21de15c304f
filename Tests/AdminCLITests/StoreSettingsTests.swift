import AppStoreStandIn
import CatalogCore
import CatalogTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("admin-cli store-settings: shown with the secret as set or not, changed field by field, the secret never shown")
struct StoreSettingsTests {
    @Test("store-settings show: the defaults of an app never configured; --json as received; admins only")
    func show() async throws {
        let cli = try await AdminCLI.forTest()
        let app = AdminCLI.uniqueApp("settingsshow")
        try await cli.succeed("apps", "create", app, "--name", "Settings")
        let shown = try await cli.succeed("store-settings", "show", "--app", app)
        #expect(shown.lines == [
            "App:            \(app)", "App Apple ID:   -", "Environments:   Production, Sandbox", "Accept Xcode:   no",
            "Shared secret:  not set", "Many accounts:  signalled above 3 App Store accounts within 720 h",
            "Version:        0 (the defaults)",
        ], "\(shown)")
        let json = try await cli.succeed("store-settings", "show", "--app", app, "--json")
        #expect(json.stdout == (try await directBody("/v1/apps/\(app)/store-settings", cli: cli)) + "\n")
        #expect(try await cli.succeed("store-settings", "show", "--app", app, "--quiet").lines == [app])

        for key in [cli.server.developerKey, cli.server.auditorKey] {
            let refused = try await cli.run(["store-settings", "show", "--app", app], environment: ["IAP_KEY": key])
            #expect(refused.status == 77, "\(refused)")
        }
        let missing = try await cli.run("store-settings", "show", "--app", "com.test.none.here")
        #expect(missing.status == 66, "\(missing)")
    }

    @Test("store-settings set changes only what is given, keeps the rest, and says when nothing changed")
    func set() async throws {
        let cli = try await AdminCLI.forTest()
        let app = AdminCLI.uniqueApp("settingsset")
        try await cli.succeed("apps", "create", app, "--name", "Settings")
        let first = try await cli.succeed("store-settings", "set", "--app", app, "--app-apple-id", "1234567890")
        #expect(first.lines.first == "Updated the store settings of \(app) (version 1).", "\(first)")
        #expect(first.lines.contains("App Apple ID:   1234567890"))
        #expect(first.lines.contains("Environments:   Production, Sandbox"))

        // The API replaces the settings whole: the CLI keeps what is not given.
        let second = try await cli.succeed("store-settings", "set", "--app", app, "--environments", "sandbox", "--accept-xcode", "true")
        #expect(second.lines.contains("App Apple ID:   1234567890"), "the Apple ID kept: \(second)")
        #expect(second.lines.contains("Environments:   Sandbox"))
        #expect(second.lines.contains("Accept Xcode:   yes"))
        let both = try await cli.succeed("store-settings", "set", "--app", app, "--environments", "Sandbox,production", "--json").json()
        #expect(Set(both["environments"] as? [String] ?? []) == ["Sandbox", "Production"] && both["appAppleId"] as? Int == 1_234_567_890)
        #expect(both["acceptXcode"] as? Bool == true && both["version"] as? Int == 3)

        // The accounts signal's settings, set and then kept by a change of something else.
        let many = try await cli.succeed("store-settings", "set", "--app", app, "--many-store-accounts-limit", "5",
                                         "--many-store-accounts-window-hours", "168")
        #expect(many.lines.contains("Many accounts:  signalled above 5 App Store accounts within 168 h"), "\(many)")
        let keptMany = try await cli.succeed("store-settings", "set", "--app", app, "--environments", "Sandbox,production",
                                             "--json").json()
        #expect(keptMany["manyStoreAccountsLimit"] as? Int == 5 && keptMany["manyStoreAccountsWindowHours"] as? Int == 168,
                "\(keptMany)")
        let unchanged = try await cli.succeed("store-settings", "set", "--app", app, "--accept-xcode", "true")
        #expect(unchanged.lines.first == "Nothing changed in the store settings of \(app).", "\(unchanged)")
        let cleared = try await cli.succeed("store-settings", "set", "--app", app, "--clear-app-apple-id", "--quiet")
        #expect(cleared.stdout == app + "\n")
        #expect(try await cli.succeed("store-settings", "show", "--app", app).lines.contains("App Apple ID:   -"))

        // Each change is a history event.
        let history = try await cli.succeed("history", "--app", app, "--kind", "store-settings-changed", "--quiet")
        #expect(history.lines.count == 5, "\(history)")

        for arguments in [[], ["--environments", "Xcode"], ["--environments", ""], ["--accept-xcode", "maybe"],
                          ["--app-apple-id", "0"], ["--app-apple-id", "7", "--clear-app-apple-id"],
                          ["--many-store-accounts-limit", "many"],
                          ["--shared-secret-stdin", "--clear-shared-secret"]] {
            let refused = try await cli.run(["store-settings", "set", "--app", app] + arguments, stdin: "s3cret\n")
            #expect(refused.status == 64, "\(arguments): \(refused)")
        }
        for key in [cli.server.developerKey, cli.server.auditorKey] {
            let refused = try await cli.run(["store-settings", "set", "--app", app, "--accept-xcode", "false"],
                                            environment: ["IAP_KEY": key])
            #expect(refused.status == 77, "\(refused)")
        }
        // An admin key of another app: this app does not exist for it.
        let other = AdminCLI.uniqueApp("settingsother")
        try await cli.succeed("apps", "create", other, "--name", "Other")
        let scoped = try await cli.succeed("keys", "create", "--role", "admin", "--name", "admin of \(other)", "--app", other,
                                           "--quiet").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        for arguments in [["store-settings", "show"], ["store-settings", "set", "--accept-xcode", "false"]] {
            let outside = try await cli.run(arguments + ["--app", app], environment: ["IAP_KEY": scoped])
            #expect(outside.status == 66, "\(arguments): \(outside)")
        }
    }

    @Test("the shared secret: read from stdin, kept by later changes, cleared; never a flag, never echoed")
    func sharedSecret() async throws {
        let cli = try await AdminCLI.forTest()
        let app = AdminCLI.uniqueApp("settingssecret")
        try await cli.succeed("apps", "create", app, "--name", "Secret")
        let secret = "cli-secret-" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let set = try await cli.succeed(["store-settings", "set", "--app", app, "--shared-secret-stdin"], stdin: secret + "\n")
        #expect(set.lines.contains("Shared secret:  set (never shown)"), "\(set)")
        let kept = try await cli.succeed("store-settings", "set", "--app", app, "--environments", "Production")
        #expect(kept.lines.contains("Shared secret:  set (never shown)"), "a later change keeps the secret: \(kept)")
        let same = try await cli.succeed(["store-settings", "set", "--app", app, "--shared-secret-stdin"], stdin: secret)
        #expect(same.lines.first == "Nothing changed in the store settings of \(app).")
        let empty = try await cli.run(["store-settings", "set", "--app", app, "--shared-secret-stdin"], stdin: "\n")
        #expect(empty.status == 64 && empty.stderr.contains("no shared secret given"), "\(empty)")
        let flag = try await cli.run("store-settings", "set", "--app", app, "--shared-secret", secret)
        let inline = try await cli.run("store-settings", "set", "--app", app, "--shared-secret=\(secret)")
        let bare = try await cli.run("store-settings", "set", "--app", app, secret)
        for refused in [flag, inline, bare] {
            #expect(refused.status == 64, "\(refused)")
            #expect(refused.stderr.contains("use --shared-secret-stdin"), "\(refused)")
        }
        #expect(flag.stderr.contains("(--shared-secret)"))
        let badSecret = try await cli.run(["store-settings", "set", "--app", app, "--shared-secret-stdin"], stdin: secret + " x\n")
        #expect(badSecret.status == 67, "a secret with a space is refused by the server: \(badSecret)")
        // At a terminal, a prompt; what is typed is not echoed.
        let typed = secret + "-typed"
        let (status, terminal) = try await cli.runAtTerminal(["store-settings", "set", "--app", app, "--shared-secret-stdin"],
                                                             prompt: "Shared secret for \(app) (not shown): ", typed: typed)
        #expect(status == 0, "\(terminal)")
        #expect(terminal.contains("Updated the store settings of"), "\(terminal)")
        #expect(!terminal.contains(typed), "the typed secret was echoed: \(terminal)")
        let cleared = try await cli.succeed("store-settings", "set", "--app", app, "--clear-shared-secret")
        #expect(cleared.lines.contains("Shared secret:  not set"))
        for result in [set, kept, same, empty, flag, inline, bare, badSecret, cleared] {
            #expect(!result.stdout.contains(secret) && !result.stderr.contains(secret), "the secret was printed: \(result)")
        }
    }

    @Test("the shared secret appears in no CLI output, no answer and no line of a server's trace log")
    func secretNeverShown() async throws {
        let url = try await TestDatabase.forSuite("admin_cli_secrets")
        let service = try await TestDatabase.serviceURL(for: url)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cli-chain-\(UUID().uuidString)")
        try LivePurchases.chain.write(to: directory)
        defer { try? FileManager.default.removeItem(at: directory) }
        let admin = try await TestKeys.make(.admin, in: url)
        let server = try await ServerProcess(
            databaseURL: service, migrationURL: url,
            environment: ["APPSTORE_ROOT_CERTIFICATES": directory.appendingPathComponent("root.pem").path], logLevel: "trace")
        defer { if server.isRunning { server.send(SIGKILL) } }
        var cli = try await AdminCLI.forTest()
        cli.environment["IAP_URL"] = server.baseURL
        cli.environment["IAP_KEY"] = admin
        let secret = "trace-secret-" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        var outputs: [CLIResult] = []
        func record(_ arguments: [String], stdin: String? = nil) async throws -> CLIResult {
            let result = try await cli.run(arguments, stdin: stdin)
            outputs.append(result)
            return result
        }

        let world = try await LivePurchases.make(cli, "secrets")
        let app = world.app
        try await world.buy(world.transaction("coins"), account: LivePurchases.account())
        #expect(try await record(["store-settings", "set", "--app", app, "--shared-secret-stdin", "--json"], stdin: secret).status == 0)
        #expect(try await record(["store-settings", "set", "--app", app, "--shared-secret-stdin"], stdin: secret + "-2\n").status == 0)
        #expect(try await record(["store-settings", "set", "--app", app, "--shared-secret-stdin"], stdin: secret + " refused").status == 67)
        #expect(try await record(["store-settings", "set", "--app", app, "--shared-secret", secret]).status == 64)
        for arguments in [["store-settings", "show"], ["store-settings", "show", "--json"],
                          ["store-settings", "set", "--environments", "Sandbox", "--json"],
                          ["history"], ["history", "--json"], ["history", "export", "--format", "csv"],
                          ["history", "export", "--format", "ndjson"], ["transactions", "list", "--json"],
                          ["transactions", "export", "--format", "csv"], ["transactions", "export", "--format", "ndjson"],
                          ["purchases", "list", "--json"]] {
            let result = try await record(arguments + ["--app", app])
            #expect(result.status == 0, "\(arguments): \(result)")
        }
        #expect(try await record(["status", "--json"]).status == 0)
        let history = try await record(["history", "--app", app, "--kind", "store-settings-changed"])
        #expect(history.lines.count == 4, "three changes of the secret or the environments: \(history)")
        #expect(history.stdout.contains("sharedSecret"), "the history says the secret changed: \(history)")
        #expect(try await record(["transactions", "list", "--app", app, "--quiet"]).lines.count == 1)

        server.send(SIGTERM)
        #expect(try await server.waitForExit() == 0)
        #expect(server.log.contains("trace"), "the server logged at trace level")
        for result in outputs {
            #expect(!result.stdout.contains(secret) && !result.stderr.contains(secret), "the CLI printed the secret: \(result)")
        }
        #expect(!server.log.contains(secret), "the server logged the secret")
    }

    private func directBody(_ path: String, cli: AdminCLI) async throws -> String {
        try await LivePurchases(cli: cli, app: "", client: "").directBody(path)
    }
}
