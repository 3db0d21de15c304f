import CatalogCore
import Foundation
import NIOCore
import PostgresNIO

/// The console's sessions in PostgreSQL (migration 0018): stored by the SHA-256 of their random id, each tied
/// to the API key it was opened with and valid only while that key is.
public struct ConsoleSessionRepository: Sendable {
    /// A session as a request finds it: the key it acts as, its CSRF secret and when it ends.
    public struct Session: Sendable {
        public let key: APIKey
        public let csrfSecret: [UInt8]
        public let expiresAt: Date
    }

    let database: Database

    /// Opens a session for `keyID` until `expiresAt`; sessions that have ended are removed on the way.
    public func open(idHash: [UInt8], keyID: UUID, csrfSecret: [UInt8], expiresAt: Date) async throws {
        try await database.translatingErrors {
            try await database.execute("DELETE FROM console_sessions WHERE expires_at <= now()")
            try await database.execute("""
                INSERT INTO console_sessions (id_hash, key_id, csrf_secret, expires_at)
                VALUES (\(ByteBuffer(bytes: idHash)), \(keyID), \(ByteBuffer(bytes: csrfSecret)), \(expiresAt))
                """)
        }
    }

    /// The session whose id hashes to `idHash`, if it has not ended and its key is neither revoked nor expired.
    public func find(idHash: [UInt8]) async throws -> Session? {
        try await database.translatingErrors {
            let rows = try await database.execute("""
                SELECT k.id, k.name, k.role::text, k.apps, k.created_at, k.expires_at, k.revoked_at,
                       s.csrf_secret, s.expires_at
                FROM console_sessions s JOIN api_keys k ON k.id = s.key_id
                WHERE s.id_hash = \(ByteBuffer(bytes: idHash)) AND s.expires_at > now()
                  AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())
                """)
            guard let row = rows.first else { return nil }
            let (id, name, role, apps, createdAt, keyExpiresAt, revokedAt, secret, expiresAt) = try row.decode(
                (UUID, String, String, [String]?, Date, Date?, Date?, ByteBuffer, Date).self)
            guard let keyRole = KeyRole(rawValue: role) else {
                throw StoreInvariantViolation(description: "unknown role \(role) in the database")
            }
            let key = APIKey(id: id, name: name, role: keyRole, apps: apps.map(Set.init), createdAt: createdAt,
                             expiresAt: keyExpiresAt, revokedAt: revokedAt)
            return Session(key: key, csrfSecret: Array(secret.readableBytesView), expiresAt: expiresAt)
        }
    }

    /// Ends the session whose id hashes to `idHash` (signing out); ending an ended one changes nothing.
    public func close(idHash: [UInt8]) async throws {
        try await database.translatingErrors {
            try await database.execute("DELETE FROM console_sessions WHERE id_hash = \(ByteBuffer(bytes: idHash))")
        }
    }
}
