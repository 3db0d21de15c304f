import CatalogTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What one run of the CLI did.
struct CLIResult: Sendable, CustomStringConvertible {
    let status: Int32
    let stdout: String
    let stderr: String

    var lines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { !$0.isEmpty } }

    /// stdout as JSON.
    func json() throws -> [String: Any] {
        let value = try JSONSerialization.jsonObject(with: Data(stdout.utf8))
        guard let object = value as? [String: Any] else { throw TestSetupError("stdout is not a JSON object: \(stdout)") }
        return object
    }

    var description: String { "exit \(status)\n--- stdout\n\(stdout)--- stderr\n\(stderr)" }
}

/// The built `iap-admin` binary, run as a person or a script would: its own HOME and config directory, an
/// environment with nothing of the developer's, and the test's server and key unless a test says otherwise.
struct AdminCLI: Sendable {
    let server: LiveCatalog.Instance
    /// A private home; the config file goes to `home/config/iap-catalog/config.json`.
    var home: URL { homeFolder.url }
    /// Removes the home with the last copy of this CLI, so that a run of the suite leaves nothing in /tmp.
    private let homeFolder: TemporaryFolder
    /// The environment every run gets (before a run's own additions).
    var environment: [String: String]

    /// A CLI for one test: a new home, `IAP_URL` and `IAP_KEY` (admin) set.
    static func forTest() async throws -> AdminCLI {
        let server = try await LiveCatalog.shared.instance()
        let homeFolder = try TemporaryFolder(prefix: "admin-cli-")
        let home = homeFolder.url
        return AdminCLI(server: server, homeFolder: homeFolder, environment: [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "HOME": home.path,
            "XDG_CONFIG_HOME": home.appendingPathComponent("config").path,
            "IAP_URL": server.url,
            "IAP_KEY": server.adminKey,
        ])
    }

    /// A CLI with no URL nor key in its environment: only flags and profiles.
    func unconfigured() -> AdminCLI {
        var copy = self
        copy.environment["IAP_URL"] = nil
        copy.environment["IAP_KEY"] = nil
        return copy
    }

    /// The config file this CLI's runs use.
    var configFile: URL { home.appendingPathComponent("config/iap-catalog/config.json") }

    /// A bundle id no other test uses.
    static func uniqueApp(_ name: String) -> String {
        "com.test.\(name).\(UUID().uuidString.prefix(8).lowercased())"
    }

    /// The binary SwiftPM built beside this test bundle (`IAP_ADMIN_BINARY` overrides).
    static let binary: URL = {
        if let path = ProcessInfo.processInfo.environment["IAP_ADMIN_BINARY"] { return URL(fileURLWithPath: path) }
        var candidates: [URL] = []
        if let executable = Bundle.main.executableURL {
            candidates.append(executable.deletingLastPathComponent().appendingPathComponent("iap-admin"))
        }
        candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("iap-admin"))
        candidates.append(TestDatabase.repositoryRoot.appendingPathComponent(".build/debug/iap-admin"))
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[candidates.count - 1]
    }()

    /// How long a run may take before it is killed and the test fails: far above a run's time on a quiet
    /// machine (a second or two), so that only a hang trips it, even on a CI runner busy with other suites.
    static let timeout: Duration = .seconds(300)

    /// Runs the CLI with `arguments`, extra `environment`, and `stdin` as its input (none: /dev/null).
    @discardableResult
    func run(_ arguments: [String], environment extra: [String: String] = [:], stdin: String? = nil) async throws -> CLIResult {
        try await runProgram(Self.binary.path, arguments, environment: extra, stdin: stdin)
    }

    /// Runs any program in this CLI's environment (a shell pipeline around the CLI, say).
    func runProgram(_ path: String, _ arguments: [String], environment extra: [String: String] = [:],
                    stdin: String? = nil) async throws -> CLIResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = environment.merging(extra) { $1 }.filter { !$0.value.isEmpty }
        process.currentDirectoryURL = home
        let output = home.appendingPathComponent("out-\(UUID().uuidString)")
        let errors = home.appendingPathComponent("err-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        let outputHandle = try FileHandle(forWritingTo: output)
        let errorHandle = try FileHandle(forWritingTo: errors)
        process.standardOutput = outputHandle
        process.standardError = errorHandle
        let input = Pipe()
        process.standardInput = stdin == nil ? FileHandle.nullDevice : input

        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
                return
            }
            if let stdin {
                input.fileHandleForWriting.write(Data(stdin.utf8))
                try? input.fileHandleForWriting.close()
            }
            // A run that hangs (waiting for input, say) is killed, so that the test fails instead of hanging.
            let running = UncheckedProcess(process: process)
            Task.detached {
                try await Task.sleep(for: Self.timeout)
                if running.process.isRunning { running.process.terminate() }
            }
        }
        try outputHandle.close()
        try errorHandle.close()
        defer {
            try? FileManager.default.removeItem(at: output)
            try? FileManager.default.removeItem(at: errors)
        }
        return CLIResult(status: status, stdout: try String(contentsOf: output, encoding: .utf8),
                         stderr: try String(contentsOf: errors, encoding: .utf8))
    }

    @discardableResult
    func run(_ arguments: String..., environment: [String: String] = [:], stdin: String? = nil) async throws -> CLIResult {
        try await run(arguments, environment: environment, stdin: stdin)
    }

    /// Runs and requires exit 0: a failure records the whole result and ends the test.
    @discardableResult
    func succeed(_ arguments: String..., environment: [String: String] = [:], stdin: String? = nil,
                 sourceLocation: SourceLocation = #_sourceLocation) async throws -> CLIResult {
        try await succeed(arguments, environment: environment, stdin: stdin, sourceLocation: sourceLocation)
    }

    @discardableResult
    func succeed(_ arguments: [String], environment: [String: String] = [:], stdin: String? = nil,
                 sourceLocation: SourceLocation = #_sourceLocation) async throws -> CLIResult {
        let result = try await run(arguments, environment: environment, stdin: stdin)
        // A step that failed ends the test: what follows reads its output, and indexing a missing line would
        // crash the whole run instead of failing this test.
        try #require(result.status == 0, "admin-cli \(arguments.joined(separator: " ")) failed:\n\(result)",
                     sourceLocation: sourceLocation)
        return result
    }

    /// Writes `text` to a file in the home and returns its path.
    func file(_ name: String, _ text: String) throws -> String {
        let url = home.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }
}

/// A process handed to the watchdog task; it only asks whether it runs and ends it.
private struct UncheckedProcess: @unchecked Sendable {
    let process: Process
}
