import CatalogCore
import Foundation
import PostgresNIO

/// Subscription groups in PostgreSQL.
public struct SubscriptionGroupRepository: Sendable {
    let database: Database

    static let columns = "id, app, reference_name, localizations::text, created_at, updated_at"

    /// Stores a new group with its `group_created` event.
    public func create(_ group: SubscriptionGroup, event: HistoryRecord) async throws {
        try await database.translatingErrors {
            try await database.execute("""
                WITH created AS (
                    INSERT INTO subscription_groups (app, id, reference_name, localizations, created_at, updated_at)
                    VALUES (\(group.bundleID), \(group.id), \(group.referenceName),
                            \(JSONColumn.encode(group.localizations))::jsonb, \(group.createdAt), \(group.updatedAt))
                    RETURNING 1)
                SELECT history_append(\(HistoryRecordJSON.text(event))::jsonb) FROM created
                """)
        }
    }

    public func find(_ bundleID: String, id: UUID) async throws -> SubscriptionGroup? {
        try await database.translatingErrors {
            let rows = try await database.query("""
                SELECT \(unescaped: Self.columns) FROM subscription_groups WHERE app = \(bundleID) AND id = \(id)
                """)
            for try await row in rows { return try Self.group(from: row) }
            return nil
        }
    }

    /// Every group of the app, by reference name.
    public func list(_ bundleID: String) async throws -> [SubscriptionGroup] {
        try await database.translatingErrors {
            let rows = try await database.query("""
                SELECT \(unescaped: Self.columns) FROM subscription_groups WHERE app = \(bundleID)
                ORDER BY reference_name COLLATE "C"
                """)
            var groups: [SubscriptionGroup] = []
            for try await row in rows { groups.append(try Self.group(from: row)) }
            return groups
        }
    }

    /// Writes an edited group with its `group_edited` event.
    public func update(_ group: SubscriptionGroup, event: HistoryRecord) async throws {
        try await database.translatingErrors {
            try await database.execute("""
                WITH changed AS (
                    UPDATE subscription_groups
                    SET reference_name = \(group.referenceName),
                        localizations = \(JSONColumn.encode(group.localizations))::jsonb, updated_at = \(group.updatedAt)
                    WHERE app = \(group.bundleID) AND id = \(group.id)
                    RETURNING 1)
                SELECT history_append(\(HistoryRecordJSON.text(event))::jsonb) FROM changed
                """)
        }
    }

    static func group(from row: PostgresRow) throws -> SubscriptionGroup {
        let (id, bundleID, referenceName, localizations, createdAt, updatedAt) =
            try row.decode((UUID, String, String, String, Date, Date).self)
        return SubscriptionGroup(
            id: id, bundleID: bundleID, referenceName: referenceName,
            localizations: try JSONColumn.decode([SubscriptionGroup.Localization].self, from: localizations),
            createdAt: createdAt, updatedAt: updatedAt)
    }
}
