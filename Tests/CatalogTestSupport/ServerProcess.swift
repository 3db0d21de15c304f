import CatalogStore
import Foundation

/// A real `iap-server serve` process, for tests of what only separate processes show: coherence between
/// servers, crashes, signals. It listens on a port of its own choosing, which it reports in its log.
public final class ServerProcess: Sendable {
    /// The built server (debug, as `swift build` makes it for the tests).
    public static var executable: URL {
        TestDatabase.repositoryRoot.appendingPathComponent(".build/debug/iap-server")
    }

    private let process: Process
    /// The file the server writes its log to. A file, not a pipe: a pipe's read end, inherited by every
    /// process the tests start meanwhile (a PostgreSQL restarted), stopped delivering the log to a reader
    /// in this process, and a reader can fall behind; a file keeps all of it, for the failure message.
    private let logFile: URL
    /// `http://127.0.0.1:PORT`.
    public let baseURL: String
    /// The port it listens on.
    public let port: Int
    public var processIdentifier: Int32 { process.processIdentifier }

    /// Starts a server on `url` (as the service's role; migrations by `migrationURL`) and waits until it
    /// listens, at most `timeout`. `logLevel`: the server's, else `IAP_TEST_SERVER_LOG_LEVEL`, else info.
    public init(databaseURL: DatabaseURL, migrationURL: DatabaseURL? = nil, environment: [String: String] = [:],
                logLevel: String? = nil, timeout: Duration = .seconds(30)) async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.executable.path) else {
            throw TestSetupError("no server at \(Self.executable.path): run swift build first (scripts/test does)")
        }
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = ["serve", "--port", "0", "--log-level",
                             logLevel ?? ProcessInfo.processInfo.environment["IAP_TEST_SERVER_LOG_LEVEL"] ?? "info"]
        var variables = ProcessInfo.processInfo.environment
        variables["DATABASE_URL"] = Self.text(databaseURL)
        // These tests load a server with a few keys on purpose: the per-key rate limits (their own tests are
        // AbuseAPITests) would turn some of that load into 429s, depending on how fast the machine is.
        variables["RATE_LIMIT_PER_SECOND"] = "1000000"
        variables["RATE_LIMIT_BURST"] = "1000000"
        if let migrationURL { variables["MIGRATION_DATABASE_URL"] = Self.text(migrationURL) }
        variables.merge(environment) { _, new in new }
        process.environment = variables
        let logFile = FileManager.default.temporaryDirectory
            .appendingPathComponent("iap-server-\(UUID().uuidString).log")
        guard FileManager.default.createFile(atPath: logFile.path, contents: nil) else {
            throw TestSetupError("cannot create \(logFile.path)")
        }
        self.logFile = logFile
        let output = try FileHandle(forWritingTo: logFile)
        defer { try? output.close() }
        process.standardOutput = output
        process.standardError = output
        self.process = process
        try process.run()
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var port: String?
        while port == nil {
            port = Self.port(in: Self.text(of: logFile))
            if port != nil { break }
            guard process.isRunning, clock.now < deadline else {
                process.terminate()
                throw TestSetupError("the server did not start listening:\n\(Self.text(of: logFile))")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        baseURL = "http://127.0.0.1:\(port!)"
        self.port = Int(port!)!
    }

    /// Runs `iap-server` with `arguments` (a command: `migrate`, `create-key`, ...) on `url` until it exits, at
    /// most `timeout`, and gives its exit status and what it wrote to standard output and to standard error.
    public static func command(_ arguments: [String], databaseURL url: DatabaseURL,
                               environment: [String: String] = [:], timeout: Duration = .seconds(60))
        async throws -> (status: Int32, output: String, errors: String)
    {
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw TestSetupError("no server at \(executable.path): run swift build first (scripts/test does)")
        }
        let directory = FileManager.default.temporaryDirectory
        let outputFile = directory.appendingPathComponent("iap-server-\(UUID().uuidString).out")
        let errorFile = directory.appendingPathComponent("iap-server-\(UUID().uuidString).err")
        for file in [outputFile, errorFile] where !FileManager.default.createFile(atPath: file.path, contents: nil) {
            throw TestSetupError("cannot create \(file.path)")
        }
        defer { for file in [outputFile, errorFile] { try? FileManager.default.removeItem(at: file) } }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var variables = ProcessInfo.processInfo.environment
        variables["DATABASE_URL"] = text(url)
        variables.merge(environment) { _, new in new }
        process.environment = variables
        let output = try FileHandle(forWritingTo: outputFile)
        let errors = try FileHandle(forWritingTo: errorFile)
        defer { try? output.close(); try? errors.close() }
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            guard ContinuousClock.now < deadline else {
                process.terminate()
                throw TestSetupError("iap-server \(arguments.joined(separator: " ")) did not end within \(timeout)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return (process.terminationStatus, text(of: outputFile), text(of: errorFile))
    }

    /// Everything the server has logged so far.
    public var log: String { Self.text(of: logFile) }

    private static func text(of file: URL) -> String { (try? String(contentsOf: file, encoding: .utf8)) ?? "" }

    public var isRunning: Bool { process.isRunning }

    /// Sends `signal` (SIGTERM to stop gracefully, SIGKILL to crash it).
    public func send(_ signal: Int32) { kill(process.processIdentifier, signal) }

    /// Waits for the process to end, at most `timeout`; answers its exit status, or `nil` if it still runs.
    public func waitForExit(timeout: Duration = .seconds(30)) async throws -> Int32? {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while process.isRunning && clock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        return process.isRunning ? nil : process.terminationStatus
    }

    /// Sends SIGTERM and waits for the exit, at most `timeout`: the exit status (`nil` if it still runs) and how
    /// long after the signal it came.
    public func terminate(waitingAtMost timeout: Duration) async throws -> (status: Int32?, after: Duration) {
        let clock = ContinuousClock()
        send(SIGTERM)
        let signalled = clock.now
        let status = try await waitForExit(timeout: timeout)
        return (status, clock.now - signalled)
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: logFile)
    }

    private static func port(in log: String) -> String? {
        guard let range = log.range(of: "listening on 127.0.0.1:") else { return nil }
        let digits = log[range.upperBound...].prefix { $0.isNumber }
        return digits.isEmpty ? nil : String(digits)
    }

    private static func text(_ url: DatabaseURL) -> String {
        "postgres://\(url.username)@\(url.host):\(url.port)/\(url.database)"
    }
}
