import CatalogAPI
import CatalogAPIConventions
import CatalogAPIServer
import CatalogStore
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import OpenAPIHummingbird
import OpenAPIRuntime
import PostgresNIO
import PurchaseCore
import ServiceLifecycle
import WebhookClient

/// What the service needs to run: where to listen and where the database is. The `serve` command and the
/// tests both provide it, so that tests run the real wiring.
public protocol ServerArguments: Sendable {
    var hostname: String { get }
    var port: Int { get }
    /// The database, as the role the service runs as.
    var databaseURL: DatabaseURL { get }
    /// The database as the role that owns the schema and applies migrations; `nil`: the service's own.
    var migrationDatabaseURL: DatabaseURL? { get }
    var logLevel: Logger.Level { get }
    var limits: ServiceLimits { get }
    /// The roots App Store signed data must chain to (`APPSTORE_ROOT_CERTIFICATES`; Apple Root CA - G3 by default).
    var trustedRoots: TrustedRoots { get }
    var console: ConsoleSettings { get }
    /// How this process verifies queued receipts; `nil`: it verifies none (other processes on the database do).
    var receiptVerification: ReceiptVerificationSettings? { get }
    /// How webhooks are delivered and which addresses they may reach.
    var webhooks: WebhookSettings { get }
}

extension ServerArguments {
    public var migrationDatabaseURL: DatabaseURL? { nil }
    public var limits: ServiceLimits { .standard }
    public var trustedRoots: TrustedRoots { .appleRootCAG3 }
    public var console: ConsoleSettings { .standard }
    /// None: `serve` always verifies; a test that needs the worker gives its settings (the stand-in's addresses).
    public var receiptVerification: ReceiptVerificationSettings? { nil }
    public var webhooks: WebhookSettings { .standard }
}

/// The whole service: the PostgreSQL client as a service, migrations before the server starts, the
/// identifier snapshots kept current, the receipt verification worker, and the responder (the identifier fast
/// path, then the router).
public func buildApplication(_ arguments: some ServerArguments) async throws -> some ApplicationProtocol {
    let logger = {
        var logger = Logger(label: "iap-catalog")
        logger.logLevel = arguments.logLevel
        return logger
    }()
    let limits = arguments.limits
    let startup = [
        ("statement_timeout", "\(limits.statementTimeout.components.seconds * 1000)"),
        ("application_name", "iap-server"),
    ]
    // PostgresNIO's debug and trace logs dump the bytes of queries and rows, which may hold a StoreKit file's
    // private key (docs/storekit.md): the database's logger stays at info or above.
    var databaseLogger = logger
    databaseLogger.logLevel = max(logger.logLevel, .info)
    // The requests' connections (ConnectionPool); the client's are for listening, migrating, verifying receipts
    // and delivering webhooks, one of them held for as long as the service listens (CatalogChanges).
    var connection = try arguments.databaseURL.connectionConfiguration()
    connection.options.connectTimeout = .seconds(3)
    connection.options.additionalStartupParameters = startup
    let pool = ConnectionPool(configuration: connection, size: limits.databaseConnections,
                              maxWaiting: limits.databaseQueue, waitTimeout: limits.databaseWait,
                              logger: databaseLogger)
    var configuration = arguments.databaseURL.configuration()
    configuration.options.maximumConnections = 6
    configuration.options.connectTimeout = .seconds(3)
    configuration.options.additionalStartupParameters = startup
    let client = PostgresClient(configuration: configuration, backgroundLogger: databaseLogger)
    let database = Database(client: client, logger: databaseLogger, pool: pool, batching: true)
    let migrator = Migrator(migrations: try Migrator.bundled(), logger: logger)
    // The one change feed of this process, on a connection of the client's; its consumers stop before it does
    // (services stop in the reverse order of this list).
    let changes = database.changes(logger: logger)
    let snapshots = IdentifierSnapshots()
    let keyCache = KeyCache()
    let requestsInFlight = RequestsInFlight(busyAbove: limits.busyRequests, longestWait: limits.busyWait)
    let metrics = ServiceMetrics(pool: pool, snapshots: snapshots, requestsInFlight: requestsInFlight,
                                 lifecycleChanges: { database.unansweredLifecycleChanges },
                                 submissions: { database.unansweredSubmissions })
    let signals = SubmissionSignals()
    let schema = SchemaReady()
    let storeSettings = StoreSettingsCache()
    let webhookSettings = arguments.webhooks
    let webhookSender = WebhookSender(settings: webhookSettings.sender, resolver: webhookSettings.resolver, logger: logger)
    // On the client's connections, as the receipt worker's below: never a request's place in the pool's queue.
    let deliveries = WebhookDeliveryService(database: Database(client: client, logger: databaseLogger), changes: changes,
                                            sender: webhookSender, settings: webhookSettings,
                                            requests: requestsInFlight, logger: logger)
    let router = try buildRouter(database: database, migrator: migrator, snapshots: snapshots, metrics: metrics,
                                 limits: limits, keyCache: keyCache,
                                 verifier: SignedDataVerifier(roots: arguments.trustedRoots), signals: signals,
                                 storeSettings: storeSettings, console: arguments.console, changes: changes,
                                 webhookSender: webhookSender, deliveries: webhookSettings.delivers ? deliveries : nil)
    var services: [any Service] = [
        client, pool, changes,
        IdentifierSnapshotService(changes: changes, feed: database.identifiers, snapshots: snapshots, logger: logger),
        KeyChangeService(changes: changes, cache: keyCache),
    ]
    // After the database's services, so that on shutdown it stops (after the HTTP server) while they still run.
    if let settings = arguments.receiptVerification {
        // On the client's connections, not the requests' pool: a lease waiting for a connection would take a
        // request's place in line, and requests holding every connection would stall verification.
        let verifying = Database(client: client, logger: databaseLogger, batching: true)
        services.append(ReceiptVerificationService(database: verifying, signals: signals, storeSettings: storeSettings,
                                                   settings: settings, metrics: metrics.receipts, schema: schema,
                                                   requests: requestsInFlight, logger: logger))
    }
    services.append(deliveries)
    var app = Application(
        responder: IdentifierFastPath(snapshots: snapshots, metrics: metrics, next: router.buildResponder()),
        server: IdentifierHTTP1Channel.server(idleTimeout: .seconds(limits.idleTimeout.components.seconds),
                                              snapshots: snapshots, metrics: metrics, serverName: "iap-catalog"),
        configuration: .init(address: .hostname(arguments.hostname, port: arguments.port), serverName: "iap-catalog"),
        services: services,
        logger: logger)
    app.beforeServerStarts {
        let applied = if let owner = arguments.migrationDatabaseURL {
            try await Database.withClient(owner, logger: logger) { try await migrator.migrate($0) }
        } else {
            try await migrator.migrate(client)
        }
        logger.info("database ready", metadata: ["database": "\(arguments.databaseURL)", "applied": "\(applied)"])
        schema.open()
    }
    return app
}

/// The routes: the console under `/console` (its own middlewares: sessions instead of bearer keys, HTML
/// instead of problem JSON), the OpenAPI operations behind the API's middlewares, and `GET /openapi.yaml`. (The
/// public identifier list is answered before routing, by ``IdentifierFastPath``.)
func buildRouter(database: Database, migrator: Migrator, snapshots: IdentifierSnapshots, metrics: ServiceMetrics,
                 limits: ServiceLimits, keyCache: KeyCache, verifier: SignedDataVerifier, signals: SubmissionSignals,
                 storeSettings: StoreSettingsCache,
                 console: ConsoleSettings = .standard, changes: CatalogChanges, webhookSender: WebhookSender,
                 deliveries: WebhookDeliveryService?,
                 now: @escaping @Sendable () -> Date = Date.init)
    throws -> Router<BasicRequestContext>
{
    let handler = CatalogAPIHandler(
        database: database, migrator: migrator, snapshots: snapshots, metrics: metrics, keyCache: keyCache,
        verifier: verifier, signals: signals,
        accountLimiter: RateLimiter(rate: limits.submissionsPerSecondPerAccount, burst: limits.burstPerAccount),
        storeSettings: storeSettings,
        now: now, changes: changes, eventStreams: EventStream.Slots(limit: limits.eventStreams),
        eventPages: EventStream.Pages(),
        eventStreamHeartbeat: limits.eventStreamHeartbeat, webhookSender: webhookSender, deliveries: deliveries)
    // One bucket per key, whether it calls the API or acts through a console session.
    let rateLimiter = RateLimiter<UUID>(rate: limits.requestsPerSecondPerKey, burst: limits.burstPerKey)
    let router = Router(context: BasicRequestContext.self)
    router.add(middleware: RequestIDMiddleware())
    router.add(middleware: ObservabilityMiddleware(metrics: metrics))
    // Middlewares apply to the routes added after them: the console's routes get only the two above.
    try ConsoleRoutes(api: handler, sessions: database.consoleSessions, keys: database.keys, rateLimiter: rateLimiter,
                      settings: console, now: now).mount(on: router)
    router.add(middleware: ProblemMiddleware())
    router.add(middleware: MethodNotAllowedMiddleware(
        routes: try DocumentedRoutes { try handler.registerHandlers(on: $0, configuration: .catalog) }))
    router.add(middleware: PercentEncodingMiddleware())
    router.add(middleware: BodyLimitMiddleware())
    // Who is calling is settled before any of the body is judged: without a key, 401, not a validation error.
    router.add(middleware: AuthenticationMiddleware(
        keys: database.keys, cache: keyCache, rateLimiter: rateLimiter,
        clientRateLimiter: RateLimiter(rate: limits.requestsPerSecondPerClientKey, burst: limits.burstPerClientKey)))
    router.add(middleware: UTF8BodyMiddleware())
    router.add(middleware: NullValueMiddleware())
    router.add(middleware: IdempotencyMiddleware(store: database.idempotency))
    router.add(middleware: PurchaseIntakeMiddleware(handler: handler))
    router.get("/openapi.yaml") { _, _ -> Response in
        Response(status: .ok, headers: [.contentType: "application/yaml"],
                 body: ResponseBody(byteBuffer: ByteBuffer(bytes: CatalogAPIDocument.yaml)))
    }
    router.get("/metrics") { _, _ -> Response in
        Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                 body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics.render())))
    }
    try handler.registerHandlers(on: router, configuration: .catalog, middlewares: [PlainHeaderValuesMiddleware()])
    return router
}
