import CatalogServer
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("admin-cli errors: one clear sentence, the fields at fault, distinct exit codes")
struct ErrorTests {
    /// No stack trace, no Swift error dump: what people see when something goes wrong.
    private func expectClean(_ result: CLIResult, sourceLocation: SourceLocation = #_sourceLocation) {
        for noise in ["Fatal error", "Stack dump", "DecodingError", "ClientError", "HTTPClientError", "NIOConnectionError", "0x"] {
            #expect(!result.stderr.contains(noise), "\(noise) in:\n\(result.stderr)", sourceLocation: sourceLocation)
        }
        #expect(result.stderr.hasPrefix("error: "), "\(result)", sourceLocation: sourceLocation)
    }

    @Test("validation failures list every field at fault (exit 67)")
    func validation() async throws {
        let cli = try await AdminCLI.forTest()
        let app = AdminCLI.uniqueApp("validation")
        try await cli.succeed("apps", "create", app, "--name", "Validation")
        let result = try await cli.run("products", "create", "bad id!", "--app", app, "--type", "consumable", "--name", "X",
                                       "--price", "0", "--display-name", "A", "--description", "ok")
        #expect(result.status == 67, "\(result)")
        expectClean(result)
        #expect(result.stderr.hasPrefix("error: The request is not valid\n"))
        let fields = result.stderr.split(separator: "\n").dropFirst().filter { $0.hasPrefix("  ") }
        #expect(fields.contains { $0.hasPrefix("  productId: ") })
        #expect(fields.contains { $0.hasPrefix("  localizations[0].displayName: ") })
        #expect(fields.count >= 3, "\(result.stderr)")

        let json = try await cli.run("products", "create", "bad id!", "--app", app, "--type", "consumable", "--name", "X", "--json")
        #expect(json.status == 67)
        #expect(try json.json()["type"] as? String == "urn:problem:iap-catalog:validation-failed", "the problem, as received")
    }

    @Test("a refused action names the state and the actions allowed from it (exit 67)")
    func invalidTransition() async throws {
        let cli = try await AdminCLI.forTest()
        let app = AdminCLI.uniqueApp("transition")
        try await cli.succeed("apps", "create", app, "--name", "Transition")
        try await cli.succeed("products", "create", "gem", "--app", app, "--type", "consumable", "--name", "Gem")
        let result = try await cli.run("submit", "gem", "--app", app)
        #expect(result.status == 67, "\(result)")
        expectClean(result)
        #expect(result.stderr.contains("error: The action is not allowed now: submit is not allowed from PENDING_DEVELOPER_APPROVAL"))
        #expect(result.stderr.contains("  state: PENDING_DEVELOPER_APPROVAL"))
        #expect(result.stderr.contains("  allowed now: approve"))

        let staleAction = try await cli.run("approve", "gem", "--app", app, "--if-match", "7")
        #expect(staleAction.status == 67, "\(staleAction)")
        #expect(staleAction.stderr.contains("If-Match does not match the current ETag \"1\""))

        let stale = try await cli.run("products", "edit", "gem", "--app", app, "--name", "Gem 2", "--if-match", "7")
        #expect(stale.status == 67, "\(stale)")
        #expect(stale.stderr.contains("error: The resource changed since it was read"))
        try await cli.succeed("products", "edit", "gem", "--app", app, "--name", "Gem 2", "--if-match", "1")
    }

    @Test("not found is exit 66; a refused or missing key is 77")
    func notFoundAndAuth() async throws {
        let cli = try await AdminCLI.forTest()
        let app = AdminCLI.uniqueApp("auth")
        try await cli.succeed("apps", "create", app, "--name", "Auth")
        let missing = try await cli.run("products", "show", "nothing.here", "--app", app)
        #expect(missing.status == 66, "\(missing)")
        expectClean(missing)
        #expect(missing.stderr.contains("error: Not found: no product nothing.here in \(app)"))

        let wrongKey = try await cli.run("apps", "list", environment: ["IAP_KEY": "expired-or-made-up"])
        #expect(wrongKey.status == 77, "\(wrongKey)")
        expectClean(wrongKey)
        #expect(wrongKey.stderr.contains("hint: the key from $IAP_KEY may be wrong, revoked or expired"))

        let auditor = try await cli.run(["products", "create", "x", "--app", app, "--type", "consumable", "--name", "X"],
                                        environment: ["IAP_KEY": cli.server.auditorKey])
        #expect(auditor.status == 77, "\(auditor)")
        #expect(auditor.stderr.contains("hint: your key's role may not do this"))
    }

    @Test("an unreachable server or a URL that is not the catalog: a clear message and exit 69")
    func unreachable() async throws {
        let cli = try await AdminCLI.forTest()
        let refused = try await cli.run("apps", "list", "--url", "http://127.0.0.1:9")
        #expect(refused.status == 69, "\(refused)")
        expectClean(refused)
        #expect(refused.stderr.contains("error: cannot reach the IAP Catalog server at http://127.0.0.1:9"))
        #expect(refused.stderr.contains("hint: is it running"))

        // Some other web server: HTML where the API was expected.
        let router = Router()
        router.get("**") { _, _ in "<html>a web site</html>" }
        let other = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await other.test(.live) { client in
            let port = try #require(client.port)
            let result = try await cli.run("apps", "list", "--url", "http://localhost:\(port)")
            #expect(result.status == 69, "\(result)")
            expectClean(result)
            #expect(result.stderr.contains("answered HTTP 200 (text/plain; charset=utf-8) where the IAP Catalog API was expected"),
                    "\(result)")
            #expect(result.stderr.contains("hint: check the URL (the URL came from --url)"))
        }
    }

    @Test("a key over its rate limit: the server's sentence, a hint, and exit 69")
    func rateLimited() async throws {
        let cli = try await AdminCLI.forTest()
        var arguments = LiveCatalog.Arguments(databaseURL: cli.server.database)
        arguments.limits.requestsPerSecondPerKey = 0.01
        arguments.limits.burstPerKey = 1
        let strict = try await buildApplication(arguments)
        try await strict.test(.live) { client in
            let url = "http://localhost:\(try #require(client.port))"
            try await cli.succeed("apps", "list", "--url", url, "--quiet")
            let refused = try await cli.run("apps", "list", "--url", url)
            #expect(refused.status == 69, "\(refused)")
            expectClean(refused)
            #expect(refused.stderr.contains("error: Too many requests for this key"))
            #expect(refused.stderr.contains("hint: slow down"))
        }
    }

    @Test("bad input files: missing, not JSON, wrong shape, unknown field (exit 65)")
    func badFiles() async throws {
        let cli = try await AdminCLI.forTest()
        let app = AdminCLI.uniqueApp("files")
        try await cli.succeed("apps", "create", app, "--name", "Files")
        let cases: [(String?, String)] = [
            (nil, "no such file"),
            ("{ \"productId\": ", "not valid JSON"),
            (#"{"productId": "a", "type": "CONSUMABLE"}"#, "referenceName is required"),
            (#"{"productId": "a", "referenceName": "A", "type": "CONSUMABLE", "prise": {"amount": "1"}}"#, "unknown field prise"),
            (#"[{"productId": "a", "referenceName": "A", "type": "CONSUMABLE", "localizations": [{"locale": "en-US", "displayName": "Aa", "description": "x", "extra": 1}]}]"#,
             "unknown field [0].localizations[0].extra"),
            (#"{"productId": "a", "referenceName": "A", "type": "GOLD"}"#, "type"),
        ]
        for (index, (content, message)) in cases.enumerated() {
            let path = try content.map { try cli.file("input\(index).json", $0) } ?? cli.home.appendingPathComponent("absent.json").path
            let result = try await cli.run("products", "create", "--app", app, "--file", path)
            #expect(result.status == 65, "\(message): \(result)")
            expectClean(result)
            #expect(result.stderr.contains("cannot use \(path): "), "\(result)")
            #expect(result.stderr.contains(message), "\(result)")
        }
        #expect(try await cli.succeed("products", "list", "--app", app, "--quiet").lines.isEmpty)
    }

    @Test("a reader that stops early (| head) ends the command quietly, without a crash")
    func closedPipe() async throws {
        let cli = try await AdminCLI.forTest()
        let app = AdminCLI.uniqueApp("pipe")
        try await cli.succeed("apps", "create", app, "--name", "Pipe")
        let file = try cli.file("many.json", "[" + (1...30).map { #"{"productId": "p.\#($0)", "referenceName": "P \#($0)", "type": "CONSUMABLE"}"# }
            .joined(separator: ",") + "]")
        try await cli.succeed("products", "create", "--app", app, "--file", file, "--quiet")
        let command = "set -o pipefail; for i in 1 2 3; do '\(AdminCLI.binary.path)' products list --app \(app) --all --json | head -c 10 >/dev/null || exit 9; done"
        let result = try await cli.runProgram("/bin/bash", ["-c", command])
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty, "\(result)")
    }
}
