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

    /// One product's events, oldest first, after the event numbered `cursor`.
    public func forProduct(_ bundleID: String, _ productID: String, after cursor: Int64?, limit: Int) async throws
        -> [HistoryEvent]
    {
        try await events("""
            SELECT \(unescaped: Self.columns) FROM history_events
            WHERE app = \(bundleID) AND product_id = \(productID)
              AND (\(cursor)::bigint IS NULL OR sequence > \(cursor))
            ORDER BY sequence LIMIT \(limit)
            """)
    }

    /// One product's events up to `instant`, oldest first: what point-in-time answers are rebuilt from.
    public func forProduct(_ bundleID: String, _ productID: String, until instant: Date) async throws -> [HistoryEvent] {
        try await events("""
            SELECT \(unescaped: Self.columns) FROM history_events
            WHERE app = \(bundleID) AND product_id = \(productID) AND at <= \(instant)
            ORDER BY sequence
            """)
    }

    /// The horizon of a new listing: the oldest transaction still running now (see ``HistoryPosition``).
    public func currentHorizon() async throws -> String {
        let rows = try await database.execute("SELECT pg_snapshot_xmin(pg_current_snapshot())::text")
        return try rows.first?.decode(String.self) ?? "0"
    }

    /// One page of the events `filter` selects, newest or oldest first, from `position`.
    public func list(_ filter: HistoryFilter, newestFirst: Bool, from position: HistoryPosition, limit: Int)
        async throws -> [HistoryEvent]
    {
        try await database.execute(Self.query(filter, newestFirst: newestFirst, horizon: position.horizon,
                                              after: position.afterSequence, limit: limit)).map(Self.event(from:))
    }

    /// Every event `filter` selects, in sequence order, read as they stream from the database: an export
    /// holds one row at a time, whatever its size. The statement's snapshot makes it consistent.
    public func export(_ filter: HistoryFilter, newestFirst: Bool) async throws -> ExportedEvents {
        let query = Self.query(filter, newestFirst: newestFirst, horizon: nil, after: nil, limit: nil)
        let (rows, held) = try await database.stream(query)
        return ExportedEvents(rows: rows, held: held)
    }

    /// Appends an event that belongs to no row change of the catalog's tables.
    public func append(_ record: HistoryRecord) async throws {
        try await database.execute("SELECT history_append(\(HistoryRecordJSON.text(record))::jsonb)")
    }

    /// The events `filter` selects; every condition is a parameter that is NULL when it does not apply (the
    /// statement is planned with its values, so the ones that apply use their indexes).
    private static func query(_ filter: HistoryFilter, newestFirst: Bool, horizon: String?, after: Int64?,
                              limit: Int?) -> PostgresQuery {
        let apps = filter.visibleApps.map { $0.sorted() }
        let actorKey = filter.actor.flatMap { UUID(uuidString: $0) }
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
        guard let kind = try parsed("kind", as: HistoryKind.self), let role = try parsed("actor_role", as: KeyRole.self)
        else { throw StoreInvariantViolation(description: "an event without kind or actor role") }
        let record = HistoryRecord(
            kind: kind, bundleID: try value("app"), productID: try value("product_id"),
            productVersion: try value("product_version"), action: try parsed("action", as: ReviewAction.self),
            fromState: try parsed("from_state", as: ReviewState.self), toState: try parsed("to_state", as: ReviewState.self),
            actor: Actor(keyID: try value("actor_key_id"), name: try value("actor_name"), role: role),
            reason: try value("reason"),
            changes: try JSONColumn.decode([FieldChange].self, from: value("changes", String.self)),
            requestID: try value("request_id"))
        return HistoryEvent(
            sequence: try value("sequence"), chainSequence: try value("chain_seq"), at: try value("at"),
            canonicalAt: try value("at_text"), chain: try value("chain"), changesJSON: try value("changes"), record: record,
            previousHash: try value("previous_hash"), hash: try value("hash"))
    }
}

/// The events of an export, one at a time as the database streams them, on a connection held until the
/// last row is read (or the export is dropped, when its reader goes away).
public struct ExportedEvents: AsyncSequence, Sendable {
    public typealias Element = HistoryEvent
    let rows: PostgresRowSequence
    let held: HeldConnection?

    public struct AsyncIterator: AsyncIteratorProtocol {
        var rows: PostgresRowSequence.AsyncIterator
        let held: HeldConnection?

        public mutating func next() async throws -> HistoryEvent? {
            guard let row = try await rows.next() else {
                held?.release()
                return nil
            }
            return try HistoryRepository.event(from: row)
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(rows: rows.makeAsyncIterator(), held: held) }
}
