import CatalogStore
import Foundation

/// A PostgreSQL cluster of one test's own, for the tests that stop and start PostgreSQL: stopping the
/// shared cluster would break every other test. It is made with `scripts/postgres` (as `scripts/test` makes
/// the shared one) under `.data/process-tests/`, on a free port that it keeps across restarts, and removed
/// by ``destroy()``.
public final class PrivateCluster: Sendable {
    public let dataDirectory: String
    public let port: Int
    /// The superuser's URL to the `postgres` database.
    public var serverURL: DatabaseURL { try! DatabaseURL("postgres://postgres@127.0.0.1:\(port)/postgres") }

    private init(dataDirectory: String, port: Int) {
        self.dataDirectory = dataDirectory
        self.port = port
    }

    /// Initialises and starts a new cluster named after `name`.
    public static func start(_ name: String) async throws -> PrivateCluster {
        let directory = TestDatabase.repositoryRoot
            .appendingPathComponent(".data/process-tests/\(name)-\(UUID().uuidString.prefix(8).lowercased())").path
        try FileManager.default.createDirectory(atPath: (directory as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        for _ in 0..<5 {
            let port = try await freePort()
            let cluster = PrivateCluster(dataDirectory: directory, port: port)
            do {
                try await cluster.start()
                return cluster
            } catch let error as ScriptFailure where error.status == 4 {
                continue // the port was taken meanwhile
            }
        }
        throw TestSetupError("could not start a private PostgreSQL on a free port")
    }

    /// A port that `scripts/postgres free-port` found free.
    public static func freePort() async throws -> Int {
        let portText = try await script(["free-port"]).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let port = Int(portText) else { throw TestSetupError("scripts/postgres free-port said \(portText)") }
        return port
    }

    /// Starts the cluster (again), on its port.
    public func start() async throws {
        _ = try await Self.script(["start", dataDirectory, String(port)])
    }

    /// Stops the cluster ("fast": open sessions are ended, as when a database server goes down).
    public func stop() async throws {
        _ = try await Self.script(["stop", dataDirectory])
    }

    /// A new database migrated by the owner, and its URL as the service's least-privileged role.
    public func database(_ name: String) async throws -> (owner: DatabaseURL, service: DatabaseURL) {
        try await TestDatabase.execute("CREATE DATABASE \"\(name)\"", in: serverURL)
        let owner = serverURL.with(database: name)
        try await TestDatabase.withClient(owner) { client in
            _ = try await Migrator(migrations: try Migrator.bundled(), logger: TestDatabase.logger).migrate(client)
        }
        return (owner, try await TestDatabase.serviceURL(for: owner))
    }

    /// Stops the cluster and removes its files.
    public func destroy() async {
        try? await stop()
        let real = (try? FileManager.default.destinationOfSymbolicLink(atPath: dataDirectory)) ?? dataDirectory
        try? FileManager.default.removeItem(atPath: real)
        try? FileManager.default.removeItem(atPath: dataDirectory)
        try? FileManager.default.removeItem(atPath: real + ".log")
    }

    /// Runs `scripts/postgres` and answers its standard output; its progress (stderr) is kept for failures.
    ///
    /// Not through `Process`: the PostgreSQL server that `start` leaves running inherits the descriptor by
    /// which Foundation learns that its child ended, so the end of the script would never be noticed. A
    /// shell (`system`) on a thread of its own waits for the script itself; its output goes to files.
    private static func script(_ arguments: [String]) async throws -> String {
        let directory = FileManager.default.temporaryDirectory
        let outputFile = directory.appendingPathComponent("iap-postgres-\(UUID().uuidString).out")
        let errorFile = directory.appendingPathComponent("iap-postgres-\(UUID().uuidString).err")
        defer {
            try? FileManager.default.removeItem(at: outputFile)
            try? FileManager.default.removeItem(at: errorFile)
        }
        let script = TestDatabase.repositoryRoot.appendingPathComponent("scripts/postgres").path
        let command = ([script] + arguments).map(quoted).joined(separator: " ")
            + " </dev/null >\(quoted(outputFile.path)) 2>\(quoted(errorFile.path))"
        let status = await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            Thread { continuation.resume(returning: system(command)) }.start()
        }
        let exitStatus = (status >> 8) & 0xFF
        let text = (try? String(contentsOf: outputFile, encoding: .utf8)) ?? ""
        guard status == 0 else {
            let progress = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
            throw ScriptFailure(status: exitStatus,
                                description: "scripts/postgres \(arguments.joined(separator: " ")) failed (\(exitStatus)):\n\(progress)")
        }
        return text
    }

    private static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    private struct ScriptFailure: Error, CustomStringConvertible {
        let status: Int32
        let description: String
    }
}
