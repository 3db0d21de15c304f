import CatalogCore
import Foundation
import PostgresNIO

/// The history's events in PostgreSQL. Events are appended only by the other repositories, in the
/// statements that make the changes they record; here they are read.
public struct HistoryRepository: Sendable {
    let database: Database

    static let columns = """
        sequence, at, app, product_id, product_version, kind::text, action::text, from_state::text,
        to_state::text, actor_key_id, actor_name, actor_role::text, reason, changes::text, request_id,
        encode(previous_hash, 'hex') AS previous_hash, encode(hash, 'hex') AS hash
        """

    /// One product's events, oldest first, after the event numbered `cursor`.
    public func forProduct(_ bundleID: String, _ productID: String, after cursor: Int64?, limit: Int) async throws
        -> [HistoryEvent]
    {
        try await database.translatingErrors {
            let rows = try await database.client.query("""
                SELECT \(unescaped: Self.columns) FROM history_events
                WHERE app = \(bundleID) AND product_id = \(productID)
                  AND (\(cursor)::bigint IS NULL OR sequence > \(cursor))
                ORDER BY sequence LIMIT \(limit)
                """, logger: database.logger)
            var events: [HistoryEvent] = []
            for try await row in rows { events.append(try Self.event(from: row)) }
            return events
        }
    }

    /// Appends an event that belongs to no row change of the catalog's tables.
    public func append(_ record: HistoryRecord) async throws {
        try await database.translatingErrors {
            try await database.execute(
                "SELECT history_append(\(HistoryRecordJSON.text(record))::jsonb)")
        }
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
        return HistoryEvent(sequence: try value("sequence"), at: try value("at"), record: record,
                            previousHash: try value("previous_hash"), hash: try value("hash"))
    }
}
