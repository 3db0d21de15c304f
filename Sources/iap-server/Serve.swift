import AppStoreClient
import ArgumentParser
import CatalogCore
import CatalogServer
import CatalogStore
import Foundation
import Hummingbird
import Logging
import PurchaseCore

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

    @Option(name: .customLong("appstore-root-certificates"),
            help: "PEM or DER files, comma-separated, whose certificates replace Apple Root CA - G3 as the roots App Store signed data must chain to (default: $APPSTORE_ROOT_CERTIFICATES).")
    var rootCertificatesOption: String?
    @Option(name: .customLong("appstore-production-url"),
            help: "Production's verifyReceipt (default: $APPSTORE_VERIFY_RECEIPT_PRODUCTION_URL, else Apple's).")
    var appStoreProductionURL: String?

    @Option(name: .customLong("appstore-sandbox-url"),
            help: "The sandbox's verifyReceipt (default: $APPSTORE_VERIFY_RECEIPT_SANDBOX_URL, else Apple's).")
    var appStoreSandboxURL: String?

    @Option(name: .customLong("appstore-timeout-seconds"),
            help: "How long one call to the App Store may take (default: $APPSTORE_TIMEOUT_SECONDS or 10).")
    var appStoreTimeoutSeconds: String?

    @Option(name: .customLong("appstore-concurrency"),
            help: "Receipts this process verifies at once (default: $APPSTORE_CONCURRENCY or 256).")
    var appStoreConcurrency: String?

    @Option(name: .customLong("appstore-retry-for"),
            help: "How long an undecided receipt is retried before it fails, e.g. 72h (default: $APPSTORE_RETRY_FOR or 72h).")
    var appStoreRetryFor: String?

    @Option(name: .customLong("appstore-lease-seconds"),
            help: "How long a leased receipt is this process's (default: $APPSTORE_LEASE_SECONDS, else twice the timeout and 15).")
    var appStoreLeaseSeconds: String?

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
        if let value = environment["BUSY_REQUESTS"].flatMap(Int.init) { limits.busyRequests = value }
        if let value = number("BUSY_WAIT_SECONDS") { limits.busyWait = .milliseconds(Int(value * 1000)) }
        if let value = number("RATE_LIMIT_PER_SECOND") { limits.requestsPerSecondPerKey = value }
        if let value = number("RATE_LIMIT_BURST") { limits.burstPerKey = max(1, Int(value)) }
        if let value = number("RATE_LIMIT_CLIENT_PER_SECOND") { limits.requestsPerSecondPerClientKey = value }
        if let value = number("RATE_LIMIT_CLIENT_BURST") { limits.burstPerClientKey = max(1, Int(value)) }
        if let value = number("RATE_LIMIT_ACCOUNT_PER_SECOND") { limits.submissionsPerSecondPerAccount = value }
        if let value = number("RATE_LIMIT_ACCOUNT_BURST") { limits.burstPerAccount = max(1, Int(value)) }
        return limits
    }

    /// `--appstore-root-certificates`, else `APPSTORE_ROOT_CERTIFICATES`: the files whose certificates are the
    /// trusted roots; `nil`: Apple Root CA - G3.
    var rootCertificateFiles: [String]? {
        guard let text = rootCertificatesOption ?? ProcessInfo.processInfo.environment["APPSTORE_ROOT_CERTIFICATES"],
              !text.trimmingCharacters(in: .whitespaces).isEmpty
        else { return nil }
        return text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// The roots of `rootCertificateFiles`, checked by ``validate()`` before the service starts.
    var trustedRoots: TrustedRoots { (try? Self.roots(rootCertificateFiles)) ?? .appleRootCAG3 }

    static func roots(_ files: [String]?) throws -> TrustedRoots {
        guard let files else { return .appleRootCAG3 }
        var contents: [[UInt8]] = []
        for file in files {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw ValidationError("APPSTORE_ROOT_CERTIFICATES: cannot read \(file)")
            }
            contents.append(Array(data))
        }
        do {
            return try TrustedRoots(pemOrDER: contents)
        } catch {
            throw ValidationError("APPSTORE_ROOT_CERTIFICATES: \(error)")
        }
    }

    /// The console's settings, from the environment (docs/operations.md), else the defaults.
    var console: ConsoleSettings {
        let environment = ProcessInfo.processInfo.environment
        var settings = ConsoleSettings.standard
        if let hours = environment["CONSOLE_SESSION_HOURS"].flatMap(Double.init), hours > 0 {
            settings.sessionLifetime = .seconds(Int(hours * 3600))
        }
        settings.trustForwardedProto = ["1", "true", "yes"].contains(environment["TRUST_FORWARDED_PROTO"]?.lowercased() ?? "")
        return settings
    }

    /// The `APPSTORE_*` settings: the environment's, with the flags given over them.
    var appStoreSettings: [String: String] {
        var settings = ProcessInfo.processInfo.environment.filter { $0.key.hasPrefix("APPSTORE_") }
        let flags: [(String, String?)] = [
            (AppStoreClientConfiguration.Name.productionURL, appStoreProductionURL),
            (AppStoreClientConfiguration.Name.sandboxURL, appStoreSandboxURL),
            (AppStoreClientConfiguration.Name.timeout, appStoreTimeoutSeconds),
            (AppStoreClientConfiguration.Name.concurrency, appStoreConcurrency),
            (AppStoreClientConfiguration.Name.retryFor, appStoreRetryFor),
            (ReceiptVerificationSettings.Name.lease, appStoreLeaseSeconds),
        ]
        for case let (name, value?) in flags { settings[name] = value }
        return settings
    }

    /// How this process verifies receipts: always, with the settings given (validated before it starts).
    var receiptVerification: ReceiptVerificationSettings? {
        try? ReceiptVerificationSettings(environment: appStoreSettings)
    }

    /// How webhooks are delivered, from the environment (docs/operations.md), else the defaults.
    var webhooks: WebhookSettings {
        let environment = ProcessInfo.processInfo.environment
        func number(_ name: String) -> Double? { environment[name].flatMap(Double.init) }
        func flag(_ name: String) -> Bool? {
            environment[name].map { ["1", "true", "yes", "on"].contains($0.lowercased()) }
        }
        var settings = WebhookSettings.standard
        if let delivers = flag("WEBHOOK_DELIVERY") { settings.delivers = delivers }
        settings.policy = WebhookAddressPolicy(
            allowsLoopbackHTTP: flag("WEBHOOK_ALLOW_LOOPBACK_HTTP") ?? false,
            allowedHosts: Set((environment["WEBHOOK_ALLOWED_HOSTS"] ?? "").split(separator: ",")
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }))
        if let value = number("WEBHOOK_TIMEOUT_SECONDS") { settings.timeout = .milliseconds(Int(value * 1000)) }
        if let value = number("WEBHOOK_CONNECT_TIMEOUT_SECONDS") { settings.connectTimeout = .milliseconds(Int(value * 1000)) }
        if let value = number("WEBHOOK_LEASE_SECONDS") { settings.lease = .milliseconds(Int(value * 1000)) }
        if let value = number("WEBHOOK_RETRY_HOURS") { settings.retry = settings.retry.retrying(for: .seconds(value * 3600)) }
        if let value = number("WEBHOOK_RETRY_FIRST_SECONDS") { settings.retry.firstDelay = .milliseconds(Int(value * 1000)) }
        if let value = number("WEBHOOK_RETRY_MAXIMUM_SECONDS") { settings.retry.maximumDelay = .milliseconds(Int(value * 1000)) }
        return settings
    }

    func validate() throws {
        do {
            _ = try ReceiptVerificationSettings(environment: appStoreSettings)
        } catch {
            throw ValidationError(error.description)
        }
        _ = try database.databaseURL()
        _ = try database.level()
        if let text = migrationDatabaseURLText ?? ProcessInfo.processInfo.environment["MIGRATION_DATABASE_URL"] {
            do { _ = try DatabaseURL(text) } catch { throw ValidationError("MIGRATION_DATABASE_URL: \(error.description)") }
        }
        guard (0...65535).contains(port) else { throw ValidationError("port \(port) is out of range") }
        _ = try Self.roots(rootCertificateFiles)
        let environment = ProcessInfo.processInfo.environment
        for name in ["WEBHOOK_TIMEOUT_SECONDS", "WEBHOOK_CONNECT_TIMEOUT_SECONDS", "WEBHOOK_LEASE_SECONDS",
                     "WEBHOOK_RETRY_FIRST_SECONDS", "WEBHOOK_RETRY_MAXIMUM_SECONDS"] {
            if let text = environment[name], !(Double(text).map { $0 > 0 && $0 <= 3600 } ?? false) {
                throw ValidationError("\(name) must be a number of seconds above 0 and at most 3600")
            }
        }
        if let text = environment["BUSY_REQUESTS"], !(Int(text).map { $0 >= 0 && $0 <= 100_000 } ?? false) {
            throw ValidationError("BUSY_REQUESTS must be a whole number of requests from 0 (never give way) to 100000")
        }
        if let text = environment["BUSY_WAIT_SECONDS"], !(Double(text).map { $0 >= 0 && $0 <= 60 } ?? false) {
            throw ValidationError("BUSY_WAIT_SECONDS must be a number of seconds from 0 to 60")
        }
        if let text = environment["WEBHOOK_RETRY_HOURS"], !(Double(text).map { $0 >= 0 && $0 <= 720 } ?? false) {
            throw ValidationError("WEBHOOK_RETRY_HOURS must be a number of hours from 0 to 720")
        }
        for host in (environment["WEBHOOK_ALLOWED_HOSTS"] ?? "").split(separator: ",") {
            let name = host.trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty, (try? WebhookURL("https://\(name)/")) != nil, !name.contains(":") else {
                throw ValidationError("WEBHOOK_ALLOWED_HOSTS: \(name) is not a host name")
            }
        }
    }

    func run() async throws {
        let app = try await buildApplication(self)
        try await app.runService()
    }
}
