import AppStoreStandIn
import CatalogCore
import CatalogServer
import CatalogStore
import CatalogTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import PurchaseCore
import Synchronization

/// The real server, started once for all the CLI tests of this process on its own database and a free
/// port, with keys made directly in the database (as `iap-server create-key` does). Each test works in
/// its own app, so they share the server without seeing each other's rows.
actor LiveCatalog {
    struct Instance: Sendable {
        /// The server's base URL.
        let url: String
        /// Tokens of keys with every app in reach, one per role.
        let adminKey: String
        let developerKey: String
        let reviewerKey: String
        let auditorKey: String
        let database: DatabaseURL
    }

    static let shared = LiveCatalog()

    private var starting: Task<Instance, any Error>?

    /// The running server, started on first use.
    func instance() async throws -> Instance {
        if let starting { return try await starting.value }
        let task = Task { try await Self.start() }
        starting = task
        return try await task.value
    }

    /// How the tests' servers run: on a free port, quiet, with the standard limits unless a test says otherwise,
    /// but for the wait for a database connection: 30 s, not 5. Every CLI test of the process shares this
    /// server while the whole suite starts at once on two cores, and a full run once saw ten CLI commands
    /// answered 503 after 5 s in that queue; the wait itself is tested by ProcessTests, which run alone.
    struct Arguments: ServerArguments {
        let hostname = "127.0.0.1"
        let port = 0
        let databaseURL: DatabaseURL
        let logLevel = Logger.Level.critical
        var limits: ServiceLimits = {
            var limits = ServiceLimits.standard
            limits.databaseWait = .seconds(30)
            return limits
        }()
        /// The stand-in's test chain instead of Apple's root, so that the purchase tests' signed data verifies.
        var trustedRoots: TrustedRoots { LivePurchases.chain.trustedRoots }
        /// Webhooks may reach the tests' receivers, over http on loopback.
        var webhooks: WebhookSettings {
            var settings = WebhookSettings.standard
            settings.policy = WebhookAddressPolicy(allowsLoopbackHTTP: true)
            return settings
        }
    }

    private static func start() async throws -> Instance {
        let database = try await TestDatabase.forSuite("admin_cli")
        let tokens = try await TestDatabase.withDatabase(database) { store in
            var tokens: [KeyRole: String] = [:]
            for role in [KeyRole.admin, .developer, .reviewer, .auditor] {
                let token = KeyToken.generate()
                let key = APIKey(id: UUID(), name: "test \(role.rawValue)", role: role, apps: nil, createdAt: Date(),
                                 expiresAt: nil, revokedAt: nil)
                try await store.keys.create(key, token: token, event: HistoryRecord(
                    kind: .keyCreated, bundleID: nil, actor: Actor(keyID: nil, name: "tests", role: .admin),
                    changes: key.historyFields))
                tokens[role] = token.text
            }
            return tokens
        }
        let app = try await buildApplication(Arguments(databaseURL: database))
        let port = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int, any Error>) in
            // The server lives as long as the test process: the test closure never returns.
            let once = Once()
            let resume: @Sendable (Result<Int, any Error>) -> Void = { result in
                if once.first() { continuation.resume(with: result) }
            }
            Task.detached {
                do {
                    try await app.test(.live) { client in
                        resume(.success(client.port ?? 0))
                        while true { try await Task.sleep(for: .seconds(3600)) }
                    }
                } catch {
                    resume(.failure(error))
                }
            }
        }
        return Instance(url: "http://localhost:\(port)", adminKey: tokens[.admin] ?? "", developerKey: tokens[.developer] ?? "",
                        reviewerKey: tokens[.reviewer] ?? "", auditorKey: tokens[.auditor] ?? "", database: database)
    }
}

/// True the first time only: the port is told once, whatever happens to the server later.
private final class Once: Sendable {
    private let done = Mutex(false)

    func first() -> Bool {
        done.withLock { done in
            defer { done = true }
            return !done
        }
    }
}
