import ArgumentParser
import CatalogServer
import CatalogStore
import Foundation
import Logging
import NIOCore
import NIOPosix

/// The service's executable: `serve` (the default), `migrate` and `create-key`.
@main
struct IAPServer: AsyncParsableCommand {
    /// Logs are JSON lines (on standard output for `serve`, standard error for the commands), or plain
    /// text with `LOG_FORMAT=text`.
    static func main() async {
        let arguments = CommandLine.arguments.dropFirst()
        let serving = arguments.first.map { $0 == "serve" || $0.hasPrefix("-") } ?? true
        // Swift's tasks run on the NIO event loops, where the service's sockets are: a request and its
        // statements then run on one thread (docs/decisions.md). TASK_EXECUTOR=swift keeps Swift's own pool.
        if serving && ProcessInfo.processInfo.environment["TASK_EXECUTOR"] != "swift" {
            _ = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        }
        if ProcessInfo.processInfo.environment["LOG_FORMAT"] != "text" {
            LoggingSystem.bootstrap { label in JSONLogHandler(label: label, toStandardError: !serving) }
        } else if !serving {
            LoggingSystem.bootstrap(StreamLogHandler.standardError)
        }
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }

    static let configuration = CommandConfiguration(
        commandName: "iap-server",
        abstract: "The IAP Catalog service.",
        discussion: """
            Reads DATABASE_URL (postgres://user@host:port/database). README's `scripts/serve` starts a private \
            PostgreSQL and sets it when it is unset.
            """,
        subcommands: [Serve.self, Migrate.self, CreateKey.self],
        defaultSubcommand: Serve.self)
}

/// The options every command shares.
struct DatabaseOptions: ParsableArguments {
    @Option(name: .customLong("database-url"), help: "The database (default: $DATABASE_URL).")
    var databaseURLText: String?

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical (default: $LOG_LEVEL or info).")
    var logLevel: String?

    func databaseURL() throws -> DatabaseURL {
        guard let text = databaseURLText ?? ProcessInfo.processInfo.environment["DATABASE_URL"] else {
            throw ValidationError("DATABASE_URL is not set; give --database-url or run scripts/serve")
        }
        do {
            return try DatabaseURL(text)
        } catch {
            throw ValidationError(error.description)
        }
    }

    func level() throws -> Logger.Level {
        let text = logLevel ?? ProcessInfo.processInfo.environment["LOG_LEVEL"] ?? "info"
        guard let level = Logger.Level(rawValue: text.lowercased()) else {
            throw ValidationError("unknown log level \(text)")
        }
        return level
    }

    func logger() throws -> Logger {
        var logger = Logger(label: "iap-server")
        logger.logLevel = try level()
        return logger
    }
}
