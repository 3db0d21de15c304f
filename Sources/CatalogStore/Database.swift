import Foundation
import Logging
import PostgresNIO

/// The catalog's PostgreSQL database: the connections its operations run on and the repositories that speak
/// SQL to it.
///
/// The service's operations run on ``pool``; without one (commands, tests), on `client`'s connections. The client
/// must be running (`client.run()`, as a service of the application) for those, for listening and migrating.
public struct Database: Sendable {
    public let client: PostgresClient
    /// The service's logger, for the layers above that log what the catalog does.
    public let logger: Logger
    /// The connections of the service's operations, which bound how many run and wait; `nil`: no bound.
    public let pool: ConnectionPool?
    /// Where concurrent lifecycle changes are written together; `nil`: each on its own.
    let lifecycleBatches: LifecycleBatches?
    /// Where concurrent purchase submissions are written together; `nil`: each on its own.
    let purchaseBatches: PurchaseBatches?
    /// Where the outcomes of concurrent verification attempts are written together; `nil`: each on its own.
    let outcomeBatches: OutcomeBatches?

    /// - Parameter batching: whether concurrent operations' lifecycle changes are written together
    ///   (``LifecycleBatches``), as the service does.
    public init(client: PostgresClient, logger: Logger, pool: ConnectionPool? = nil, batching: Bool = false) {
        self.client = client
        self.logger = logger
        self.pool = pool
        lifecycleBatches = batching ? LifecycleBatches() : nil
        purchaseBatches = batching ? PurchaseBatches() : nil
        outcomeBatches = batching ? .outcomes() : nil
    }

    public var apps: AppRepository { AppRepository(database: self) }
    public var subscriptionGroups: SubscriptionGroupRepository { SubscriptionGroupRepository(database: self) }
    public var products: ProductRepository { ProductRepository(database: self) }
    public var keys: KeyRepository { KeyRepository(database: self) }
    public var consoleSessions: ConsoleSessionRepository { ConsoleSessionRepository(database: self) }
    public var history: HistoryRepository { HistoryRepository(database: self) }
    public var idempotency: IdempotencyRepository { IdempotencyRepository(database: self) }
    public var storeKit: StoreKitRepository { StoreKitRepository(database: self) }
    public var catalog: CatalogRepository { CatalogRepository(database: self) }
    public var submissions: PurchaseSubmissionRepository { PurchaseSubmissionRepository(database: self) }
    public var ledger: LedgerRepository { LedgerRepository(database: self) }
    public var storeSettings: StoreSettingsRepository { StoreSettingsRepository(database: self) }
    public var accounts: AccountRepository { AccountRepository(database: self) }
    public var signals: SignalRepository { SignalRepository(database: self) }

    /// Lifecycle changes waiting to be written with others' or being written, for metrics.
    public var unansweredLifecycleChanges: Int { lifecycleBatches?.unanswered ?? 0 }

    /// Purchase submissions waiting to be written with others' or being written, for metrics.
    public var unansweredSubmissions: Int { purchaseBatches?.unanswered ?? 0 }

    /// The connection the current operation holds, if any: every statement of one operation runs on it.
    @TaskLocal static var held: PostgresConnection?

    /// The versions of every migration applied (none before the first), for readiness: through the pool like
    /// any request, so that a database that is down makes it answer "unavailable" within the wait, never hang.
    public func appliedMigrations() async throws -> Set<Int> {
        try await translatingErrors {
            let exists = try await execute("SELECT to_regclass('schema_migrations') IS NOT NULL")
            guard try exists.first?.decode(Bool.self) == true else { return [] }
            return Set(try await execute("SELECT version FROM schema_migrations").map { try $0.decode(Int.self) })
        }
    }

    /// Runs `query` to its end and answers its rows. PostgresNIO hands back a query's rows before the
    /// statement has finished, and an error that comes later arrives only to whoever reads the rows: every
    /// statement here is read to its end, so that no error (a constraint, a trigger) can go unnoticed.
    @discardableResult
    func execute(_ query: PostgresQuery) async throws -> [PostgresRow] {
        try await translatingErrors { try await self.query(query).collect() }
    }

    /// Starts `query` on the operation's connection (inside ``translatingErrors(_:)``), or on any
    /// connection of the client when there is no pool (commands, tests).
    func query(_ query: PostgresQuery) async throws -> PostgresRowSequence {
        if let connection = Self.held {
            let logger = logger
            return try await connection.guarded { try await connection.query(query, logger: logger) }
        }
        return try await client.query(query, logger: logger)
    }

    /// Runs `work` holding a connection of the pool (its scope's, see ``withOneConnection(_:)``, or one of its
    /// own), turning PostgreSQL's errors into the catalog's: a constraint the client broke becomes a
    /// ``CatalogError``, a database that cannot be reached or a connection that cannot be had in time becomes
    /// ``StoreUnavailable``.
    @discardableResult
    func translatingErrors<Result>(_ work: () async throws -> Result) async throws -> Result {
        do {
            // An operation made of several statements holds one connection for all of them.
            guard let pool, Self.held == nil else { return try await work() }
            if let scope = Self.scope {
                let connection = try await scope.connection { try await pool.lease() }
                return try await Self.$held.withValue(connection, operation: work)
            }
            let lease = try await pool.lease()
            defer { lease.release() }
            return try await Self.$held.withValue(lease.connection, operation: work)
        } catch let error as PSQLError {
            throw StoreErrorTranslation.translate(error, logger: logger)
        } catch let error as PostgresTransactionError {
            // A transaction's statement failed: its error is the one to translate.
            if let cause = error.cause as? PSQLError {
                throw StoreErrorTranslation.translate(cause, logger: logger)
            }
            throw error.closureError ?? error
        }
    }

    /// Runs `body` as one transaction on the operation's connection (inside ``translatingErrors(_:)``), or
    /// on any connection of the client when there is no pool.
    func inTransaction(_ body: @escaping @Sendable (PostgresConnection) async throws -> Void) async throws {
        if let connection = Self.held {
            let logger = logger
            // Several statements: each must be watched for the connection closing (see `unlessClosed`).
            try await connection.unlessClosed {
                try await connection.withTransaction(logger: logger) { try await body($0) }
            }
        } else {
            try await client.withTransaction(logger: logger) { try await body($0) }
        }
    }
}

/// JSON for the columns that hold structured values; sorted keys keep stored values stable.
enum JSONColumn {
    static func encode(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return String(decoding: try encoder.encode(value), as: UTF8.self)
        } catch {
            preconditionFailure("cannot encode \(value) as JSON: \(error)")
        }
    }

    static func encodeIfPresent(_ value: (some Encodable)?) -> String? {
        guard let value else { return nil }
        return encode(value)
    }

    static func decode<Value: Decodable>(_ type: Value.Type, from text: String) throws -> Value {
        try JSONDecoder().decode(type, from: Data(text.utf8))
    }

    static func decodeIfPresent<Value: Decodable>(_ type: Value.Type, from text: String?) throws -> Value? {
        guard let text else { return nil }
        return try decode(type, from: text)
    }
}

extension Database {
    /// Runs `body` with a client for `url` that runs only for `body`'s duration (commands, migrations).
    public static func withClient<Result: Sendable>(
        _ url: DatabaseURL, logger: Logger, _ body: @Sendable (PostgresClient) async throws -> Result
    ) async throws -> Result {
        let client = PostgresClient(configuration: url.configuration(), backgroundLogger: logger)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            // `body` starts once `run()` is being entered: a lease before it begins works, but PostgresNIO logs
            // a warning for it, which every command would print.
            await withCheckedContinuation { (started: CheckedContinuation<Void, Never>) in
                group.addTask {
                    started.resume()
                    await client.run()
                }
            }
            defer { group.cancelAll() }
            return try await body(client)
        }
    }
}
