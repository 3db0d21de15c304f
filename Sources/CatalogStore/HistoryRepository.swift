import CatalogCore
import Foundation
import PostgresNIO

/// The history's events in PostgreSQL. Events are appended only by the other repositories, in the
/// statements that make the changes they record; here they are read, listed, exported and verified.
public struct HistoryRepository: Sendable {
    let database: Database

    static let columns = """
        sequence, chain_seq, at, app, product_id, product_version, kind::text, action::text, from_state::text,
        to_state::text, actor_key_id, actor_name, actor_role::text, reason, changes::text, request_id,
        encode(previous_hash, 'hex') AS previous_hash, encode(hash, 'hex') AS hash,
        to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at_text, chain
        """

    /// The condition that selects a product's own events (``HistoryKind/productKinds``): the sales recorded under
    /// its productId are the ledger's. It is the predicate of the index that answers it (sql/0013).
    static let productKindsCondition = "kind IN (" + HistoryKind.productKinds.map { "'\($0.rawValue)'" }.joined(separator: ", ") + ")"

    /// One product's events, oldest first, after the event numbered `cursor`.
    public func forProduct(_ bundleID: String, _ productID: String, after cursor: Int64?, limit: Int) async throws
        -> [HistoryEvent]
    {
        try await events("""
            SELECT \(unescaped: Self.columns) FROM history_events
            WHERE app = \(bundleID) AND product_id = \(productID) AND \(unescaped: Self.productKindsCondition)
              AND (\(cursor)::bigint IS NULL OR sequence > \(cursor))
            ORDER BY sequence LIMIT \(limit)
            """)
    }

    /// One product's events up to `instant`, oldest first: what point-in-time answers are rebuilt from.
    public func forProduct(_ bundleID: String, _ productID: String, until instant: Date) async throws -> [HistoryEvent] {
        try await events("""
            SELECT \(unescaped: Self.columns) FROM history_events
            WHERE app = \(bundleID) AND product_id = \(productID) AND \(unescaped: Self.productKindsCondition)
              AND at <= \(instant)
            ORDER BY sequence
            """)
    }

    /// The horizon of a new listing: the oldest transaction of this database still running now (see
    /// ``HistoryPosition`` and `history_horizon()` in sql/0005).
    public func currentHorizon() async throws -> String {
        let rows = try await database.execute("SELECT history_horizon()::text")
        return try rows.first?.decode(String.self) ?? "0"
    }

    /// One page of the events `filter` selects, newest or oldest first, from `position`.
    public func list(_ filter: HistoryFilter, newestFirst: Bool, from position: HistoryPosition, limit: Int)
        async throws -> [HistoryEvent]
    {
        try await database.execute(Self.query(filter, newestFirst: newestFirst, horizon: position.horizon,
                                              after: position.afterSequence, limit: limit)).map(Self.event(from:))
    }

    /// The events `filter` selects numbered after `sequence` and up to `through`, oldest first, at most `limit`:
    /// what the change feed reads (``CatalogChanges``), which knows how far events can no longer appear.
    func list(_ filter: HistoryFilter, after sequence: Int64, through: Int64, limit: Int) async throws -> [HistoryEvent] {
        try await database.execute(Self.query(filter, newestFirst: false, horizon: nil, after: sequence,
                                              through: through, limit: limit)).map(Self.event(from:))
    }

    /// Every event `filter` selects, in sequence order, read in batches of `batchSize` as the reader takes
    /// them: an export holds one batch at a time, whatever its size. The batches are keyset pages over one
    /// horizon, as listings are, so the export is the consistent set of events finished when it began; each
    /// batch is a short statement of its own, so an export of millions of events neither runs into the
    /// statement timeout nor keeps a connection of the pool for its whole length. A batch's rows are decoded on
    /// the event loop the export runs on, about 40 µs each: a few hundred at a time keep its other connections
    /// from waiting long.
    public func export(_ filter: HistoryFilter, newestFirst: Bool, batchSize: Int = 250) async throws -> ExportedEvents {
        ExportedEvents(repository: self, filter: filter, newestFirst: newestFirst,
                       horizon: try await currentHorizon(), batchSize: batchSize)
    }

    /// Appends an event that belongs to no row change of the catalog's tables.
    public func append(_ record: HistoryRecord) async throws {
        try await database.execute("SELECT history_append(\(HistoryRecordJSON.text(record))::jsonb)")
    }

    /// The events `filter` selects; every condition is a parameter that is NULL when it does not apply (the
    /// statement is planned with its values, so the ones that apply use their indexes).
    private static func query(_ filter: HistoryFilter, newestFirst: Bool, horizon: String?, after: Int64?,
                              through: Int64? = nil, limit: Int?) -> PostgresQuery {
        let apps = filter.visibleApps.map { $0.sorted() }
        let actorKey = filter.actor.flatMap { UUID(text: $0) }
        let actorName = actorKey == nil ? filter.actor : nil
        return """
            SELECT \(unescaped: columns) FROM history_events
            WHERE (\(apps)::text[] IS NULL OR app = ANY(\(apps)::text[]))
              AND (\(filter.app)::text IS NULL OR app = \(filter.app))
              AND (\(filter.productID)::text IS NULL OR product_id = \(filter.productID))
              AND (\(actorKey)::uuid IS NULL OR actor_key_id = \(actorKey))
              AND (\(actorName)::text IS NULL OR actor_name = \(actorName))
              AND (\(filter.action?.rawValue)::review_action IS NULL OR action = \(filter.action?.rawValue)::review_action)
              AND (\(filter.kind?.rawValue)::history_kind IS NULL OR kind = \(filter.kind?.rawValue)::history_kind)
              AND (\(filter.state?.rawValue)::review_state IS NULL
                   OR from_state = \(filter.state?.rawValue)::review_state OR to_state = \(filter.state?.rawValue)::review_state)
              AND (\(filter.since)::timestamptz IS NULL OR at >= \(filter.since))
              AND (\(filter.until)::timestamptz IS NULL OR at < \(filter.until))
              AND (\(horizon)::xid8 IS NULL OR txid < \(horizon)::xid8)
              AND (\(through)::bigint IS NULL OR sequence <= \(through))
              AND (\(after)::bigint IS NULL OR (\(newestFirst) AND sequence < \(after))
                   OR (NOT \(newestFirst) AND sequence > \(after)))
            ORDER BY sequence \(unescaped: newestFirst ? "DESC" : "ASC")
            LIMIT \(limit)
            """
    }

    private func events(_ query: PostgresQuery) async throws -> [HistoryEvent] {
        try await database.execute(query).map(Self.event(from:))
    }

    static func event(from row: PostgresRow) throws -> HistoryEvent {
        let columns = row.makeRandomAccess()
        func value<T: PostgresDecodable>(_ name: String, _ type: T.Type = T.self) throws -> T {
            try columns[name].decode(T.self)
        }
        func parsed<T: RawRepresentable>(_ name: String, as type: T.Type) throws -> T? where T.RawValue == String {
            guard let raw = try value(name, String?.self) else { return nil }
            guard let parsed = T(rawValue: raw) else {
                throw StoreInvariantViolation(description: "unknown \(name) \(raw) in the history")
            }
            return parsed
        }
        guard let kind = try parsed("kind", as: HistoryKind.self) else {
            throw StoreInvariantViolation(description: "an event without kind")
        }
        let changesJSON = try value("changes", String.self)
        guard let changes = FieldChange.list(fromJSON: changesJSON) else {
            throw StoreInvariantViolation(description: "an event's changes that are not a list of field changes")
        }
        // No role: the App Store's own notifications, which no key makes.
        let role = try parsed("actor_role", as: KeyRole.self)
        let record = HistoryRecord(
            kind: kind, bundleID: try value("app"), productID: try value("product_id"),
            productVersion: try value("product_version"), action: try parsed("action", as: ReviewAction.self),
            fromState: try parsed("from_state", as: ReviewState.self), toState: try parsed("to_state", as: ReviewState.self),
            actor: Actor(keyID: try value("actor_key_id"), name: try value("actor_name"), role: role),
            reason: try value("reason"),
            changes: changes,
            requestID: try value("request_id"))
        return HistoryEvent(
            sequence: try value("sequence"), chainSequence: try value("chain_seq"), at: try value("at"),
            canonicalAt: try value("at_text"), chain: try value("chain"), changesJSON: changesJSON, record: record,
            previousHash: try value("previous_hash"), hash: try value("hash"))
    }
}

/// The events of an export, one at a time, fetched a batch at a time as the reader asks for more.
public struct ExportedEvents: AsyncSequence, Sendable {
    public typealias Element = HistoryEvent
    let repository: HistoryRepository
    let filter: HistoryFilter
    let newestFirst: Bool
    let horizon: String
    let batchSize: Int

    public struct AsyncIterator: AsyncIteratorProtocol {
        let events: ExportedEvents
        var batch: [HistoryEvent] = []
        var index = 0
        var after: Int64?
        var exhausted = false

        public mutating func next() async throws -> HistoryEvent? {
            if index == batch.count {
                guard !exhausted else { return nil }
                batch = try await events.repository.list(
                    events.filter, newestFirst: events.newestFirst,
                    from: HistoryPosition(horizon: events.horizon, afterSequence: after), limit: events.batchSize)
                index = 0
                exhausted = batch.count < events.batchSize
                guard let last = batch.last else { return nil }
                after = last.sequence
            }
            defer { index += 1 }
            return batch[index]
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(events: self) }
}
