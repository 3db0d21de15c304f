import CatalogCore
import Foundation
import NIOCore
import PostgresNIO

/// API keys in PostgreSQL, stored by the hash of their token.
public struct KeyRepository: Sendable {
    let database: Database

    static let columns = "id, name, role::text, apps, created_at, expires_at, revoked_at"

    /// Stores a new key with its `key_created` event.
    public func create(_ key: APIKey, token: KeyToken, event: HistoryRecord) async throws {
        try await database.translatingErrors {
            try await database.execute("""
                WITH created AS (
                    INSERT INTO api_keys (id, name, role, apps, token_hash, created_at, expires_at)
                    VALUES (\(key.id), \(key.name), \(key.role.rawValue)::key_role, \(key.apps.map { $0.sorted() }),
                            \(ByteBuffer(bytes: token.hash)), \(key.createdAt), \(key.expiresAt))
                    RETURNING 1)
                SELECT history_append(\(HistoryRecordJSON.text(event))::jsonb) FROM created
                """)
        }
    }

    /// The key whose token has the SHA-256 `hash` (``KeyToken/hash``), if it is neither revoked nor expired.
    public func authenticate(hash: [UInt8]) async throws -> APIKey? {
        try await database.translatingErrors {
            let rows = try await database.query("""
                SELECT \(unescaped: Self.columns) FROM api_keys
                WHERE token_hash = \(ByteBuffer(bytes: hash)) AND revoked_at IS NULL
                  AND (expires_at IS NULL OR expires_at > now())
                """)
            for try await row in rows { return try Self.key(from: row) }
            return nil
        }
    }

    public func find(_ id: UUID) async throws -> APIKey? {
        try await database.translatingErrors {
            let rows = try await database.query(
                "SELECT \(unescaped: Self.columns) FROM api_keys WHERE id = \(id)")
            for try await row in rows { return try Self.key(from: row) }
            return nil
        }
    }

    /// Every key, newest first.
    public func list() async throws -> [APIKey] {
        try await database.translatingErrors {
            let rows = try await database.query(
                "SELECT \(unescaped: Self.columns) FROM api_keys ORDER BY created_at DESC, id")
            var keys: [APIKey] = []
            for try await row in rows { keys.append(try Self.key(from: row)) }
            return keys
        }
    }

    /// Revokes the key at `at` with its `key_revoked` event; answers whether it was still active.
    public func revoke(_ id: UUID, at: Date, event: HistoryRecord) async throws -> Bool {
        try await database.translatingErrors {
            let rows = try await database.execute("""
                WITH revoked AS (
                    UPDATE api_keys SET revoked_at = \(at) WHERE id = \(id) AND revoked_at IS NULL RETURNING 1)
                SELECT history_append(\(HistoryRecordJSON.text(event))::jsonb) FROM revoked
                """)
            return !rows.isEmpty
        }
    }

    static func key(from row: PostgresRow) throws -> APIKey {
        let (id, name, role, apps, createdAt, expiresAt, revokedAt) =
            try row.decode((UUID, String, String, [String]?, Date, Date?, Date?).self)
        guard let keyRole = KeyRole(rawValue: role) else {
            throw StoreInvariantViolation(description: "unknown role \(role) in the database")
        }
        return APIKey(id: id, name: name, role: keyRole, apps: apps.map(Set.init), createdAt: createdAt,
                      expiresAt: expiresAt, revokedAt: revokedAt)
    }
}
