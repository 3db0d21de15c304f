import CatalogCore
import CatalogStore
import CatalogTestSupport
import PostgresNIO
import Testing

@Suite("Migrations")
struct MigratorTests {
    @Test("apply in order once, record each, and a second run applies nothing")
    func appliesOnce() async throws {
        let url = try await TestDatabase.empty("migrations_once")
        try await TestDatabase.withClient(url) { client in
            let migrator = Migrator(migrations: try Migrator.bundled(), logger: TestDatabase.logger)
            #expect(try await migrator.currentVersion(client) == 0)
            let first = try await migrator.migrate(client)
            #expect(first == migrator.migrations.map(\.version))
            #expect(try await migrator.migrate(client).isEmpty)
            #expect(try await migrator.currentVersion(client) == migrator.latestVersion)
        }
    }

    @Test("servers starting together apply each migration exactly once")
    func concurrentServers() async throws {
        let url = try await TestDatabase.empty("migrations_concurrent")
        let applied = try await withThrowingTaskGroup(of: [Int].self) { group in
            for _ in 0..<4 {
                group.addTask {
                    try await TestDatabase.withClient(url) { client in
                        try await Migrator(migrations: try Migrator.bundled(), logger: TestDatabase.logger).migrate(client)
                    }
                }
            }
            return try await group.reduce(into: [Int]()) { $0 += $1 }
        }
        #expect(applied.sorted() == (try Migrator.bundled()).map(\.version))
    }

    @Test("an applied migration that changed is refused: migrations are forward-only")
    func changedMigrationRefused() async throws {
        let url = try await TestDatabase.empty("migrations_changed")
        try await TestDatabase.withClient(url) { client in
            let bundled = try Migrator.bundled()
            try await Migrator(migrations: bundled, logger: TestDatabase.logger).migrate(client)
            let edited = bundled.map { Migrator.Migration(version: $0.version, name: $0.name, sql: $0.sql + "\n-- edited") }
            await #expect(throws: Migrator.Failure.self) {
                try await Migrator(migrations: edited, logger: TestDatabase.logger).migrate(client)
            }
        }
    }

    @Test("a migration the database refuses is named with PostgreSQL's reason, and nothing of it stays")
    func failedMigrationExplained() async throws {
        let url = try await TestDatabase.empty("migrations_failed")
        try await TestDatabase.withClient(url) { client in
            let broken = [Migrator.Migration(version: 1, name: "broken", sql: "CREATE TABLE kept (id int);\nCREATE TABLE nope (id nosuchtype);")]
            do {
                try await Migrator(migrations: broken, logger: TestDatabase.logger).migrate(client)
                Issue.record("the broken migration was applied")
            } catch let failure as Migrator.Failure {
                #expect("\(failure)" == #"migration 1 (broken) failed: type "nosuchtype" does not exist (SQLSTATE 42704)"#)
            }
            let kept = try await client.query("SELECT to_regclass('kept') IS NULL").collect()
            #expect(try kept.first?.decode(Bool.self) == true)
        }
    }

    @Test("a role that may not change the schema, finding a migration missing, is told which one failed and why")
    func missingMigrationUnderServiceRole() async throws {
        let url = try await TestDatabase.empty("migrations_service_role")
        let bundled = try Migrator.bundled()
        // The newest migration, forgotten: like every migration, it changes objects only their owner may change.
        let last = try #require(bundled.last)
        try await TestDatabase.withClient(url) { client in
            try await Migrator(migrations: bundled, logger: TestDatabase.logger).migrate(client)
            _ = try await client.query("DELETE FROM schema_migrations WHERE version = \(last.version)").collect()
        }
        let service = try await TestDatabase.serviceURL(for: url)
        try await TestDatabase.withClient(service) { client in
            do {
                try await Migrator(migrations: bundled, logger: TestDatabase.logger).migrate(client)
                Issue.record("the service's role applied a migration")
            } catch let failure as Migrator.Failure {
                #expect("\(failure)".hasPrefix("migration \(last.version) (\(last.name)) failed: "), "\(failure)")
                #expect("\(failure)".contains("SQLSTATE 42501"), "\(failure)")
            }
        }
    }

    /// Numbers 16 to 21 were given out to branches in advance (docs/decisions.md), so that branches merged in any
    /// order never collide: one of those may be missing while its branch is not merged; no other may.
    static let reservedVersions: Set<Int> = Set(16...21)

    @Test("the bundled migrations are the files of sql/, numbered from 1, each once; a gap only where a number is reserved")
    func bundledFiles() throws {
        let versions = try Migrator.bundled().map(\.version)
        #expect(versions.first == 1 && versions == versions.sorted() && Set(versions).count == versions.count)
        let missing = Set(1...(versions.last ?? 1)).subtracting(versions)
        #expect(missing.isSubset(of: Self.reservedVersions), "missing \(missing.sorted())")
    }
}
