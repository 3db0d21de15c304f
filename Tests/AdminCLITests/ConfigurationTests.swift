import Foundation
import Testing

@Suite("admin-cli configuration: flags, environment, profiles")
struct ConfigurationTests {
    /// The name of the key a run used, as `status` tells it.
    private func keyName(_ result: CLIResult) -> String? {
        result.lines.first { $0.hasPrefix("Key:") }.map { String($0.dropFirst(4)).trimmingCharacters(in: .whitespaces) }
    }

    @Test("login checks the key, stores it 0600 in a 0700 directory, and never prints it")
    func loginStoresProfile() async throws {
        let cli = try await AdminCLI.forTest().unconfigured()
        let key = cli.server.developerKey
        let result = try await cli.succeed("login", "--url", cli.server.url, "--key", key)
        #expect(result.stdout.contains("Logged in to \(cli.server.url) as test developer (developer"))
        #expect(!result.stdout.contains(key) && !result.stderr.contains(key))

        let attributes = try FileManager.default.attributesOfItem(atPath: cli.configFile.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let directory = try FileManager.default.attributesOfItem(atPath: cli.configFile.deletingLastPathComponent().path)
        #expect((directory[.posixPermissions] as? NSNumber)?.intValue == 0o700)
        let stored = try JSONSerialization.jsonObject(with: Data(contentsOf: cli.configFile)) as? [String: Any]
        let profile = (stored?["profiles"] as? [String: Any])?["default"] as? [String: Any]
        #expect(profile?["url"] as? String == cli.server.url)
        #expect(profile?["key"] as? String == key)

        // With nothing in the environment, the profile is used.
        let status = try await cli.succeed("status")
        #expect(keyName(status) == "test developer (from profile \"default\")")
    }

    @Test("login reads the key from stdin when not given, and refuses a wrong key without saving anything")
    func loginFromStdin() async throws {
        let cli = try await AdminCLI.forTest().unconfigured()
        let refused = try await cli.run("login", "--url", cli.server.url, stdin: "not-a-real-key\n")
        #expect(refused.status == 77, "\(refused)")
        #expect(refused.stderr.contains("error: A valid API key is required"))
        #expect(!FileManager.default.fileExists(atPath: cli.configFile.path))

        let result = try await cli.succeed("login", "--profile", "ci", "--url", cli.server.url, stdin: cli.server.auditorKey + "\n")
        #expect(result.stdout.contains("as test auditor (auditor"))
        #expect(result.stdout.contains("Saved profile \"ci\""))
        #expect(!result.stdout.contains(cli.server.auditorKey))
        #expect(keyName(try await cli.succeed("status", "--profile", "ci")) == "test auditor (from profile \"ci\")")
        #expect(keyName(try await cli.succeed("status", environment: ["IAP_PROFILE": "ci"])) == "test auditor (from profile \"ci\")")
    }

    @Test("precedence: --key over IAP_KEY over the profile, and the same for the URL")
    func precedence() async throws {
        let cli = try await AdminCLI.forTest().unconfigured()
        try await cli.succeed("login", "--url", cli.server.url, "--key", cli.server.auditorKey)
        #expect(keyName(try await cli.succeed("status")) == "test auditor (from profile \"default\")")
        let environment = ["IAP_KEY": cli.server.reviewerKey]
        #expect(keyName(try await cli.succeed("status", environment: environment)) == "test reviewer (from $IAP_KEY)")
        #expect(keyName(try await cli.succeed("status", "--key", cli.server.developerKey, environment: environment))
            == "test developer (from --key)")

        // A dead URL in the environment beats the profile's; the flag beats both.
        let dead = ["IAP_URL": "http://127.0.0.1:9"]
        let unreachable = try await cli.run("status", environment: dead)
        #expect(unreachable.status == 69, "\(unreachable)")
        #expect(unreachable.stderr.contains("http://127.0.0.1:9"))
        let flagged = try await cli.succeed("status", "--url", cli.server.url, environment: dead)
        #expect(flagged.stdout.contains("\(cli.server.url) (from --url)"))
    }

    @Test("an unknown profile, a broken config file and a missing key are configuration errors")
    func configurationErrors() async throws {
        let cli = try await AdminCLI.forTest().unconfigured()
        let unknown = try await cli.run("apps", "list", "--profile", "nope")
        #expect(unknown.status == 78, "\(unknown)")
        #expect(unknown.stderr.contains("there is no profile \"nope\""))

        let noKey = try await cli.run("apps", "list", "--url", cli.server.url)
        #expect(noKey.status == 77, "\(noKey)")
        #expect(noKey.stderr.contains("no API key is configured"))
        #expect(noKey.stderr.contains("admin-cli login"))

        let badURL = try await cli.run("apps", "list", "--url", "localhost:8080", "--key", "k")
        #expect(badURL.status == 64, "\(badURL)")
        #expect(badURL.stderr.contains("is not an http(s) URL"))

        try FileManager.default.createDirectory(at: cli.configFile.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("{ not json".utf8).write(to: cli.configFile)
        let broken = try await cli.run("apps", "list")
        #expect(broken.status == 78, "\(broken)")
        #expect(broken.stderr.contains("is not a valid configuration file"))
    }

    @Test("a profile's default app is used when --app is not given; logout removes the profile")
    func profileApp() async throws {
        var cli = try await AdminCLI.forTest()
        let app = AdminCLI.uniqueApp("profile")
        try await cli.succeed("apps", "create", app, "--name", "Profile app")
        try await cli.succeed("products", "create", "p.one", "--app", app, "--type", "consumable", "--name", "One")
        cli = cli.unconfigured()
        try await cli.succeed("login", "--url", cli.server.url, "--key", cli.server.developerKey, "--app", app)
        #expect(try await cli.succeed("products", "list", "--quiet").lines == ["p.one"])
        let other = try await cli.run("products", "list", "--quiet", environment: ["IAP_APP": "com.test.none"])
        #expect(other.status == 66, "IAP_APP beats the profile's app: \(other)")

        try await cli.succeed("logout")
        let afterLogout = try await cli.run("products", "list")
        #expect(afterLogout.status == 77, "\(afterLogout)")
    }
}
