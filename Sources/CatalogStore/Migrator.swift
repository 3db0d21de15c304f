import CatalogCore
import Crypto
import Foundation
import Logging
import PostgresNIO

/// Applies the numbered, forward-only migrations of `sql/` in order, each in its own transaction, under an
/// advisory lock so that several servers starting at once apply each migration exactly once.
public struct Migrator: Sendable {
    /// One file of `sql/`: `0001_catalog.sql` is version 1, named `catalog`.
    public struct Migration: Sendable, Hashable {
        public let version: Int
        public let name: String
        public let sql: String

        public init(version: Int, name: String, sql: String) {
            self.version = version
            self.name = name
            self.sql = sql
        }

        /// SHA-256 of the file, recorded when applied: an applied migration must never change.
        public var checksum: String {
            SHA256.hash(data: Data(sql.utf8)).lowercaseHexadecimal
        }
    }

    /// What went wrong with the migrations themselves (not the database connection).
    public enum Failure: Error, CustomStringConvertible {
        case badFileName(String)
        case duplicateVersion(Int)
        case changedAfterApplying(version: Int, name: String)
        case unknownVersionApplied(Int)
        case missingResources
        /// A migration's statements failed; `reason` is PostgreSQL's message (migrations are our SQL, not a
        /// client's input, and whoever deploys needs to know what the database refused).
        case failed(version: Int, name: String, reason: String)

        public var description: String {
            switch self {
            case .badFileName(let name): "migration file \(name) is not named NNNN_name.sql"
            case .duplicateVersion(let version): "two migration files have version \(version)"
            case .changedAfterApplying(let version, let name):
                "migration \(version) (\(name)) changed after it was applied; migrations are forward-only: add a new one"
            case .unknownVersionApplied(let version):
                "the database has migration \(version), which this build does not know: it is newer than this server"
            case .missingResources: "the migrations are missing from the build's resources"
            case .failed(let version, let name, let reason): "migration \(version) (\(name)) failed: \(reason)"
            }
        }
    }

    /// A lock key of our own, so that no other application's advisory locks collide with it.
    static let lockKey: Int64 = 0x1A9_CA7A_1000

    public let migrations: [Migration]
    let logger: Logger

    public init(migrations: [Migration], logger: Logger) {
        self.migrations = migrations
        self.logger = logger
    }

    /// The migrations built into this binary, from the `sql/` folder, in version order.
    public static func bundled() throws -> [Migration] {
        guard let folder = Bundle.module.url(forResource: "Migrations", withExtension: nil) else {
            throw Failure.missingResources
        }
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "sql" }
        let migrations = try files.map { url in
            let name = url.deletingPathExtension().lastPathComponent
            let parts = name.split(separator: "_", maxSplits: 1)
            guard parts.count == 2, parts[0].count == 4, let version = Int(parts[0]) else {
                throw Failure.badFileName(url.lastPathComponent)
            }
            return Migration(version: version, name: String(parts[1]), sql: try String(contentsOf: url, encoding: .utf8))
        }.sorted { $0.version < $1.version }
        for (earlier, later) in zip(migrations, migrations.dropFirst()) where earlier.version == later.version {
            throw Failure.duplicateVersion(later.version)
        }
        return migrations
    }

    /// The newest version this build knows.
    public var latestVersion: Int { migrations.last?.version ?? 0 }

    /// Applies every migration the database lacks, and answers the versions applied now. When none is
    /// missing it only reads, so that a role without DDL rights (the service's) can call it.
    @discardableResult
    public func migrate(_ client: PostgresClient) async throws -> [Int] {
        try await client.withConnection { connection in
            if try await !hasPending(on: connection) { return [] }
            _ = try await connection.query("SELECT pg_advisory_lock(\(Self.lockKey))", logger: logger).collect()
            do {
                let applied = try await apply(on: connection)
                _ = try await connection.query("SELECT pg_advisory_unlock(\(Self.lockKey))", logger: logger).collect()
                return applied
            } catch {
                _ = try? await connection.query("SELECT pg_advisory_unlock(\(Self.lockKey))", logger: logger).collect()
                throw error
            }
        }
    }

    /// The highest version applied to the database, or 0 before the first migration.
    public func currentVersion(_ client: PostgresClient) async throws -> Int {
        let exists = try await client.query("SELECT to_regclass('schema_migrations') IS NOT NULL", logger: logger)
        for try await exists in exists.decode(Bool.self) where !exists { return 0 }
        let rows = try await client.query("SELECT coalesce(max(version), 0) FROM schema_migrations", logger: logger)
        for try await version in rows.decode(Int.self) { return version }
        return 0
    }

    /// Whether some migration is missing; also refuses a database whose applied migrations this build
    /// does not know or that changed since.
    private func hasPending(on connection: PostgresConnection) async throws -> Bool {
        let exists = try await connection.query("SELECT to_regclass('schema_migrations') IS NOT NULL", logger: logger)
            .collect()
        guard try exists.first?.decode(Bool.self) == true else { return true }
        let recorded = try await recordedChecksums(on: connection)
        return migrations.contains { recorded[$0.version] == nil }
    }

    /// The applied versions and their checksums, checked against this build's migrations.
    private func recordedChecksums(on connection: PostgresConnection) async throws -> [Int: String] {
        var recorded: [Int: String] = [:]
        for try await (version, checksum) in try await connection.query(
            "SELECT version, checksum FROM schema_migrations", logger: logger).decode((Int, String).self) {
            recorded[version] = checksum
        }
        let known = Dictionary(uniqueKeysWithValues: migrations.map { ($0.version, $0) })
        for (version, checksum) in recorded {
            guard let migration = known[version] else { throw Failure.unknownVersionApplied(version) }
            guard migration.checksum == checksum else {
                throw Failure.changedAfterApplying(version: version, name: migration.name)
            }
        }
        return recorded
    }

    /// PostgreSQL's own words for a failed statement (PostgresNIO's description hides them by design).
    private static func reason(_ error: any Error) -> String {
        let cause = (error as? PostgresTransactionError)?.cause ?? error
        guard let error = cause as? PSQLError, let info = error.serverInfo, let message = info[.message] else {
            return String(describing: cause)
        }
        return "\(message) (SQLSTATE \(info[.sqlState] ?? "?"))"
    }

    private func apply(on connection: PostgresConnection) async throws -> [Int] {
        // Only when missing: CREATE ... IF NOT EXISTS still needs the right to create in the schema, and the
        // service's role, finding a migration missing, must hear which one its database refused, and why.
        _ = try await connection.query("""
            DO $$ BEGIN IF to_regclass('schema_migrations') IS NULL THEN
            CREATE TABLE schema_migrations (
                version    integer PRIMARY KEY,
                name       text NOT NULL,
                checksum   text NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now()
            );
            END IF; END $$
            """, logger: logger).collect()
        let recorded = try await recordedChecksums(on: connection)
        var applied: [Int] = []
        for migration in migrations where recorded[migration.version] == nil {
            logger.info("applying migration", metadata: ["version": "\(migration.version)", "name": "\(migration.name)"])
            do {
                try await connection.withTransaction(logger: logger) { connection in
                    for statement in SQLScript(migration.sql).statements {
                        _ = try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger).collect()
                    }
                    _ = try await connection.query("""
                        INSERT INTO schema_migrations (version, name, checksum)
                        VALUES (\(migration.version), \(migration.name), \(migration.checksum))
                        """, logger: logger).collect()
                }
            } catch {
                throw Failure.failed(version: migration.version, name: migration.name, reason: Self.reason(error))
            }
            applied.append(migration.version)
        }
        return applied
    }
}
