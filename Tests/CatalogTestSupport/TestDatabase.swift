import CatalogStore
import Foundation
import Logging
import PostgresNIO
import Synchronization

/// The private PostgreSQL the tests run against, and a fresh database per test suite.
///
/// `scripts/test` starts a private cluster and sets `IAP_TEST_DATABASE_URL` (a superuser URL). A plain
/// `swift test` without it starts one itself with `scripts/postgres` under `.data/test-postgres-direct`.
/// Either way a suite that cannot reach PostgreSQL fails within seconds with a message saying why.
public enum TestDatabase {
    /// The root of the repository (tests run from anywhere).
    public static let repositoryRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        preconditionFailure("no Package.swift above \(#filePath)")
    }()

    public static let logger: Logger = {
        var logger = Logger(label: "tests")
        logger.logLevel = ProcessInfo.processInfo.environment["TEST_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .critical
        return logger
    }()

    /// A new, migrated database named after `suite`, made once per suite and process.
    public static func forSuite(_ suite: String) async throws -> DatabaseURL {
        try await Registry.shared.database(for: suite)
    }

    /// The login role the tests run the service as: a member of `iap_service` (made by the migrations),
    /// with exactly the service's privileges.
    public static let serviceRole = "iap_test_service"

    /// `url`'s database as the service's role; `url` must be migrated.
    public static func serviceURL(for url: DatabaseURL) async throws -> DatabaseURL {
        try await execute("""
            DO $$ BEGIN
                CREATE ROLE \(serviceRole) LOGIN IN ROLE iap_service;
            EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
            END $$
            """, in: url)
        return url.with(username: serviceRole)
    }

    /// A new, empty (unmigrated) database.
    public static func empty(_ name: String) async throws -> DatabaseURL {
        try await Registry.shared.create(name)
    }

    /// Runs `body` with a running client for `url`; the client stops when `body` returns.
    @discardableResult
    public static func withClient<Result: Sendable>(
        _ url: DatabaseURL, maximumConnections: Int = 20,
        _ body: @Sendable (PostgresClient) async throws -> Result
    ) async throws -> Result {
        var configuration = url.configuration()
        configuration.options.connectTimeout = .seconds(5)
        configuration.options.maximumConnections = maximumConnections
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        // Not a child task, whose end the scope would await for ever: full runs of the suites have been seen to
        // stall in tests that never ended, each of which makes this wait, for a client's `run()` to return once
        // cancelled (docs/decisions.md, "A stalled test run"). The wait is bounded, and said when it runs out.
        let running = Task { await client.run() }
        let result: Result
        do {
            result = try await body(client)
        } catch {
            await stop(running)
            throw error
        }
        await stop(running)
        return result
    }

    /// Cancels a client's `run()` and waits for it to return, at most 10 seconds; beyond them it is left to
    /// return whenever it does, and standard error says so.
    private static func stop(_ running: Task<Void, Never>) async {
        running.cancel()
        let ended = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let answer = FirstAnswer(continuation)
            let timer = Task {
                try? await Task.sleep(for: .seconds(10))
                answer.give(false)
            }
            Task {
                await running.value
                answer.give(true)
                timer.cancel()
            }
        }
        if !ended {
            FileHandle.standardError.write(Data(
                "TestDatabase: a PostgresClient's run() had not returned 10 s after it was cancelled\n".utf8))
        }
    }

    /// Resumes its continuation with the first answer given; later ones are dropped.
    private final class FirstAnswer: Sendable {
        private let continuation: Mutex<CheckedContinuation<Bool, Never>?>

        init(_ continuation: CheckedContinuation<Bool, Never>) {
            self.continuation = Mutex(continuation)
        }

        func give(_ answer: Bool) {
            continuation.withLock { continuation in
                defer { continuation = nil }
                return continuation
            }?.resume(returning: answer)
        }
    }

    /// Runs `body` with a ``Database`` for `url`.
    public static func withDatabase<Result: Sendable>(
        _ url: DatabaseURL, _ body: @Sendable (Database) async throws -> Result
    ) async throws -> Result {
        try await withClient(url) { client in try await body(Database(client: client, logger: logger)) }
    }

    /// Runs one SQL statement as the superuser in `url`'s database (for tests that play a hostile client).
    public static func execute(_ sql: String, in url: DatabaseURL) async throws {
        try await withClient(url) { client in
            _ = try await client.query(PostgresQuery(unsafeSQL: sql), logger: logger).collect()
        }
    }

    private actor Registry {
        static let shared = Registry()
        private var server: DatabaseURL?
        private var suites: [String: Task<DatabaseURL, any Error>] = [:]
        private let run = String(UUID().uuidString.prefix(8)).lowercased()

        func database(for suite: String) async throws -> DatabaseURL {
            if let existing = suites[suite] { return try await existing.value }
            let task = Task { () throws -> DatabaseURL in
                let url = try await self.create(suite)
                try await TestDatabase.withClient(url) { client in
                    try await Migrator(migrations: try Migrator.bundled(), logger: logger).migrate(client)
                }
                return url
            }
            suites[suite] = task
            return try await task.value
        }

        func create(_ name: String) async throws -> DatabaseURL {
            let server = try serverURL()
            let safe = name.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "_" }
            let database = "t_\(run)_\(String(safe.prefix(40)))_\(UUID().uuidString.prefix(4).lowercased())"
            do {
                try await TestDatabase.withClient(server) { client in
                    _ = try await client.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \"\(database)\""), logger: logger).collect()
                }
            } catch {
                throw TestSetupError("""
                    cannot create a test database on \(server): \(String(reflecting: error)).
                    Run the tests with scripts/test, which starts a private PostgreSQL.
                    """)
            }
            return server.with(database: database)
        }

        private func serverURL() throws -> DatabaseURL {
            if let server { return server }
            let environment = ProcessInfo.processInfo.environment
            let text = try environment["IAP_TEST_DATABASE_URL"] ?? startPrivateServer()
            let url = try DatabaseURL(text)
            server = url
            return url
        }

        /// Starts (or reuses) a cluster for a plain `swift test`, through the same script as `scripts/test`.
        private func startPrivateServer() throws -> String {
            let dataDirectory = repositoryRoot.appendingPathComponent(".data/test-postgres-direct").path
            let port = ProcessInfo.processInfo.environment["IAP_TEST_PG_PORT"] ?? "54330"
            let script = repositoryRoot.appendingPathComponent("scripts/postgres").path
            let process = Process()
            process.executableURL = URL(fileURLWithPath: script)
            process.arguments = ["start", dataDirectory, port]
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw TestSetupError("scripts/postgres start \(dataDirectory) \(port) failed (\(process.terminationStatus))")
            }
            return "postgres://postgres@127.0.0.1:\(port)/postgres"
        }
    }
}

/// The test environment itself is broken (no PostgreSQL), as opposed to a failing test.
public struct TestSetupError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
