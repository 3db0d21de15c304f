import Foundation
import NIOCore
import PostgresNIO

/// The first answer to each POST made with an `Idempotency-Key`, per API key, kept for 24 hours.
public struct IdempotencyRepository: Sendable {
    /// What a request with an idempotency key should do.
    public enum Claim: Sendable, Equatable {
        /// The key is new: go ahead, then ``IdempotencyRepository/complete(keyID:idempotencyKey:response:)``.
        case claimed
        /// The key was used with this very request: answer what was answered then.
        case replay(StoredResponse)
        /// The key was used with another request.
        case mismatch
        /// The first request with this key is still being answered.
        case inProgress
    }

    /// An answer as stored for replay.
    public struct StoredResponse: Sendable, Equatable, Codable {
        public let status: Int
        public let headers: [String: String]
        public let body: [UInt8]

        public init(status: Int, headers: [String: String], body: [UInt8]) {
            self.status = status
            self.headers = headers
            self.body = body
        }
    }

    /// How long a key is remembered.
    public static let retention: Duration = .seconds(24 * 60 * 60)

    let database: Database

    /// Claims `idempotencyKey` for a request whose method, path and body hash to `requestHash`.
    public func claim(keyID: UUID, idempotencyKey: String, requestHash: [UInt8]) async throws -> Claim {
        try await database.translatingErrors {
            let hash = ByteBuffer(bytes: requestHash)
            let seconds = Int(Self.retention.components.seconds)
            // An expired record is forgotten first, so that its key starts afresh.
            try await database.execute("""
                DELETE FROM idempotency_keys
                WHERE key_id = \(keyID) AND idempotency_key = \(idempotencyKey)
                  AND created_at < now() - make_interval(secs => \(seconds))
                """)
            let inserted = try await database.execute("""
                INSERT INTO idempotency_keys (key_id, idempotency_key, request_hash)
                VALUES (\(keyID), \(idempotencyKey), \(hash))
                ON CONFLICT (key_id, idempotency_key) DO NOTHING
                RETURNING 1
                """)
            if !inserted.isEmpty { return .claimed }
            let rows = try await database.query("""
                SELECT request_hash, status, response_headers::text, response_body FROM idempotency_keys
                WHERE key_id = \(keyID) AND idempotency_key = \(idempotencyKey)
                """)
            for try await (storedHash, status, headers, body) in rows.decode((ByteBuffer, Int?, String?, ByteBuffer?).self) {
                guard storedHash == hash else { return .mismatch }
                guard let status else { return .inProgress }
                return .replay(StoredResponse(
                    status: status,
                    headers: try JSONColumn.decodeIfPresent([String: String].self, from: headers) ?? [:],
                    body: body.map { Array($0.readableBytesView) } ?? []))
            }
            // Released between our insert and our read: the caller may simply retry.
            return .inProgress
        }
    }

    /// Stores the answer to the claimed request, for replay.
    public func complete(keyID: UUID, idempotencyKey: String, response: StoredResponse) async throws {
        try await database.translatingErrors {
            try await database.execute("""
                UPDATE idempotency_keys
                SET status = \(response.status), response_headers = \(JSONColumn.encode(response.headers))::jsonb,
                    response_body = \(ByteBuffer(bytes: response.body))
                WHERE key_id = \(keyID) AND idempotency_key = \(idempotencyKey)
                """)
        }
    }

    /// Forgets a claim whose request failed without an answer worth replaying, so that a retry runs anew.
    public func release(keyID: UUID, idempotencyKey: String) async throws {
        try await database.translatingErrors {
            try await database.execute("""
                DELETE FROM idempotency_keys
                WHERE key_id = \(keyID) AND idempotency_key = \(idempotencyKey) AND status IS NULL
                """)
        }
    }
}
