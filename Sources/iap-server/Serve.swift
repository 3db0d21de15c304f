import ArgumentParser
import CatalogServer
import CatalogStore
import Foundation
import Hummingbird
import Logging

/// Migrates the database if needed, then serves until SIGINT or SIGTERM, finishing in-flight requests.
struct Serve: AsyncParsableCommand, ServerArguments {
    static let configuration = CommandConfiguration(
        abstract: "Migrate the database if needed, then serve HTTP.",
        discussion: "Example: DATABASE_URL=postgres://postgres@127.0.0.1:54329/iap_catalog iap-server serve --port 8080")

    @OptionGroup var database: DatabaseOptions

    @Option(name: .customLong("migration-database-url"),
            help: "The database as the schema's owner, for migrations (default: $MIGRATION_DATABASE_URL, else the service's).")
    var migrationDatabaseURLText: String?

    @Option(name: .customLong("hostname"), help: "Address to listen on (default: $HOST or 127.0.0.1).")
    var hostnameOption: String?

    @Option(name: .customLong("port"), help: "Port to listen on (default: $PORT or 8080).")
    var portOption: Int?

    var hostname: String { hostnameOption ?? ProcessInfo.processInfo.environment["HOST"] ?? "127.0.0.1" }
    var port: Int { portOption ?? ProcessInfo.processInfo.environment["PORT"].flatMap(Int.init) ?? 8080 }
    var databaseURL: DatabaseURL { (try? database.databaseURL())! }
    var migrationDatabaseURL: DatabaseURL? {
        (migrationDatabaseURLText ?? ProcessInfo.processInfo.environment["MIGRATION_DATABASE_URL"])
            .flatMap { try? DatabaseURL($0) }
    }
    var logLevel: Logger.Level { (try? database.level()) ?? .info }

    /// The limits, from the environment (docs/operations.md), else the defaults.
    var limits: ServiceLimits {
        let environment = ProcessInfo.processInfo.environment
        func number(_ name: String) -> Double? { environment[name].flatMap(Double.init) }
        var limits = ServiceLimits.standard
        if let value = number("DATABASE_POOL_SIZE") { limits.databaseConnections = max(1, Int(value)) }
        if let value = number("DATABASE_QUEUE_LIMIT") { limits.databaseQueue = max(0, Int(value)) }
        if let value = number("DATABASE_WAIT_SECONDS") { limits.databaseWait = .milliseconds(Int(value * 1000)) }
        if let value = number("STATEMENT_TIMEOUT_SECONDS") { limits.statementTimeout = .seconds(Int(value)) }
        if let value = number("IDLE_TIMEOUT_SECONDS") { limits.idleTimeout = .seconds(Int(value)) }
        if let value = number("RATE_LIMIT_PER_SECOND") { limits.requestsPerSecondPerKey = value }
        if let value = number("RATE_LIMIT_BURST") { limits.burstPerKey = max(1, Int(value)) }
        return limits
    }

    func validate() throws {
        _ = try database.databaseURL()
        _ = try database.level()
        if let text = migrationDatabaseURLText ?? ProcessInfo.processInfo.environment["MIGRATION_DATABASE_URL"] {
            do { _ = try DatabaseURL(text) } catch { throw ValidationError("MIGRATION_DATABASE_URL: \(error.description)") }
        }
        guard (0...65535).contains(port) else { throw ValidationError("port \(port) is out of range") }
    }

    func run() async throws {
        let app = try await buildApplication(self)
        try await app.runService()
    }
}
