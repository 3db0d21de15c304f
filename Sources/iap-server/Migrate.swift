import ArgumentParser
import CatalogStore
import Logging
import PostgresNIO

/// Applies the migrations of `sql/` and exits. Run it as the schema's owner (`DATABASE_URL` here is the
/// owner's), not as the service's role.
struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Apply the database migrations and exit.",
        discussion: "Example: DATABASE_URL=postgres://postgres@127.0.0.1:54329/iap_catalog iap-server migrate")

    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        let logger = try database.logger()
        let migrator = Migrator(migrations: try Migrator.bundled(), logger: logger)
        let applied = try await withDatabase(database, logger: logger) { client in
            try await migrator.migrate(client)
        }
        logger.info("migrated", metadata: ["applied": "\(applied)", "latest": "\(migrator.latestVersion)"])
    }
}

/// Runs `work` with a running client for the command's database.
func withDatabase<Result: Sendable>(_ options: DatabaseOptions, logger: Logger,
                                    _ work: @Sendable @escaping (PostgresClient) async throws -> Result)
    async throws -> Result
{
    try await Database.withClient(try options.databaseURL(), logger: logger, work)
}
