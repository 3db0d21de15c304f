import CatalogCore
import Foundation
import NIOCore
import PostgresNIO

/// Webhook endpoints and their delivery attempts in PostgreSQL (migration 0021). The events to deliver are the
/// history's own rows: an endpoint keeps a cursor over them, moved forward only after a delivery, under a lease
/// that one process holds at a time (docs/decisions.md "Webhooks: the history is the outbox").
public struct WebhookRepository: Sendable {
    let database: Database

    static let columns = """
        id, url, apps, kinds::text[], created_at, delivered_through, failing_since, failed_attempts, next_attempt_at,
        disabled_at, disabled_reason
        """

    /// An endpoint leased for delivery: what it is, its secret, and the generation its cursor was read at.
    public struct Leased: Sendable {
        public let endpoint: WebhookEndpoint
        public let secret: WebhookSecret
        public let generation: Int64
    }

    /// Why an endpoint could not be created.
    public enum CreateRefusal: Error, Sendable {
        /// ``WebhookEndpoint/maximumCount`` endpoints exist already.
        case tooMany
    }

    /// Stores a new endpoint with its `webhook_created` event. It gets the events numbered after the last number
    /// handed out now (`history_mark()`).
    public func create(_ endpoint: WebhookEndpoint, secret: WebhookSecret, by keyID: UUID?, event: HistoryRecord)
        async throws -> WebhookEndpoint
    {
        try await database.translatingErrors {
            let rows = try await database.execute("""
                WITH created AS (
                    INSERT INTO webhook_endpoints (id, url, apps, kinds, secret, created_at, created_by, delivered_through)
                    SELECT \(endpoint.id), \(endpoint.url.description), \(endpoint.apps.map { $0.sorted() }),
                           \(endpoint.kinds.map { $0.map(\.rawValue).sorted() })::history_kind[],
                           \(ByteBuffer(bytes: secret.bytes)), \(endpoint.createdAt), \(keyID), mark.assigned
                    FROM history_mark() AS mark
                    WHERE (SELECT count(*) FROM webhook_endpoints) < \(WebhookEndpoint.maximumCount)
                    RETURNING \(unescaped: Self.columns)),
                recorded AS (SELECT history_append(\(HistoryRecordJSON.text(event))::jsonb) FROM created)
                SELECT \(unescaped: Self.columns) FROM created, recorded
                """)
            guard let row = rows.first else { throw CreateRefusal.tooMany }
            return try Self.endpoint(from: row)
        }
    }

    /// Every endpoint, oldest first.
    public func list() async throws -> [WebhookEndpoint] {
        try await database.translatingErrors {
            try await database.execute(
                "SELECT \(unescaped: Self.columns) FROM webhook_endpoints ORDER BY created_at, id"
            ).map(Self.endpoint(from:))
        }
    }

    public func find(_ id: UUID) async throws -> WebhookEndpoint? {
        try await database.translatingErrors {
            try await database.execute(
                "SELECT \(unescaped: Self.columns) FROM webhook_endpoints WHERE id = \(id)"
            ).first.map(Self.endpoint(from:))
        }
    }

    /// Deletes the endpoint and its attempts, with its `webhook_deleted` event; answers whether it existed.
    public func delete(_ id: UUID, event: HistoryRecord) async throws -> Bool {
        try await database.translatingErrors {
            let rows = try await database.execute("""
                WITH deleted AS (DELETE FROM webhook_endpoints WHERE id = \(id) RETURNING 1)
                SELECT history_append(\(HistoryRecordJSON.text(event))::jsonb) FROM deleted
                """)
            return !rows.isEmpty
        }
    }

    /// Moves the endpoint's cursor back so that the events from `sequence` on are delivered again, and resumes a
    /// disabled endpoint, with its `webhook_redelivered` event; answers the endpoint, or `nil` if there is none.
    public func redeliver(_ id: UUID, from sequence: Int64, event: HistoryRecord) async throws -> WebhookEndpoint? {
        try await database.translatingErrors {
            let rows = try await database.execute("""
                WITH moved AS (
                    UPDATE webhook_endpoints
                    SET delivered_through = \(max(sequence - 1, 0)), generation = generation + 1, failing_since = NULL,
                        failed_attempts = 0, next_attempt_at = NULL, disabled_at = NULL, disabled_reason = NULL
                    WHERE id = \(id)
                    RETURNING \(unescaped: Self.columns)),
                recorded AS (SELECT history_append(\(HistoryRecordJSON.text(event))::jsonb) FROM moved)
                SELECT \(unescaped: Self.columns) FROM moved, recorded
                """)
            return try rows.first.map(Self.endpoint(from:))
        }
    }

    /// The endpoint's attempts, newest first, those with an id below `before` (a page's key).
    public func attempts(of id: UUID, before: Int64?, limit: Int) async throws -> [WebhookAttempt] {
        try await database.translatingErrors {
            try await database.execute("""
                SELECT id, sequence, attempt, at, duration_ms, status, outcome, error FROM webhook_attempts
                WHERE endpoint_id = \(id) AND (\(before)::bigint IS NULL OR id < \(before))
                ORDER BY id DESC LIMIT \(limit)
                """).map { row in
                let (id, sequence, attempt, at, milliseconds, status, outcome, error) =
                    try row.decode((Int64, Int64, Int, Date, Int, Int?, String, String?).self)
                guard let outcome = WebhookAttempt.Outcome(rawValue: outcome) else {
                    throw StoreInvariantViolation(description: "unknown attempt outcome \(outcome)")
                }
                return WebhookAttempt(id: id, sequence: sequence, attempt: attempt, at: at,
                                      duration: .milliseconds(milliseconds), status: status, outcome: outcome, error: error)
            }
        }
    }

    // MARK: - Delivery

    /// Leases up to `limit` active endpoints no other process holds (or whose holder's lease ran out), other
    /// than `except` (those `holder` delivers to already), for `lease`, to `holder`.
    public func claim(holder: UUID, lease: Duration, limit: Int, except: [UUID]) async throws -> [Leased] {
        try await database.translatingErrors {
            try await database.execute("""
                UPDATE webhook_endpoints e
                SET lease_holder = \(holder), lease_until = now() + make_interval(secs => \(lease.seconds))
                FROM (SELECT id FROM webhook_endpoints
                      WHERE disabled_at IS NULL
                        AND (lease_holder = \(holder) OR lease_until IS NULL OR lease_until < now())
                        AND NOT (id = ANY(\(except)::uuid[]))
                      ORDER BY next_attempt_at NULLS FIRST, id
                      LIMIT \(limit)
                      FOR UPDATE SKIP LOCKED) free
                WHERE e.id = free.id
                RETURNING e.id, e.url, e.apps, e.kinds::text[], e.created_at, e.delivered_through, e.failing_since,
                          e.failed_attempts, e.next_attempt_at, e.disabled_at, e.disabled_reason, e.secret, e.generation
                """).map { row in
                let endpoint = try Self.endpoint(from: row)
                let columns = row.makeRandomAccess()
                let secret = try columns["secret"].decode(ByteBuffer.self)
                return Leased(endpoint: endpoint, secret: WebhookSecret(bytes: Array(buffer: secret)),
                              generation: try columns["generation"].decode(Int64.self))
            }
        }
    }

    /// Extends `holder`'s leases of `ids` by `lease`; answers those still held and active, with their generation
    /// (a generation that moved: the cursor was moved by someone else, and must be read again).
    public func renew(holder: UUID, ids: [UUID], lease: Duration) async throws -> [UUID: Int64] {
        guard !ids.isEmpty else { return [:] }
        return try await database.translatingErrors {
            var held: [UUID: Int64] = [:]
            for row in try await database.execute("""
                UPDATE webhook_endpoints SET lease_until = now() + make_interval(secs => \(lease.seconds))
                WHERE lease_holder = \(holder) AND id = ANY(\(ids)::uuid[]) AND disabled_at IS NULL
                RETURNING id, generation
                """) {
                let (id, generation) = try row.decode((UUID, Int64).self)
                held[id] = generation
            }
            return held
        }
    }

    /// Gives `holder`'s leases of `ids` back, so that another process may take them at once.
    public func release(holder: UUID, ids: [UUID]) async throws {
        guard !ids.isEmpty else { return }
        try await database.translatingErrors {
            try await database.execute("""
                UPDATE webhook_endpoints SET lease_holder = NULL, lease_until = NULL
                WHERE lease_holder = \(holder) AND id = ANY(\(ids)::uuid[])
                """)
        }
    }

    /// A delivered event, to record with the cursor's move.
    public struct Delivered: Sendable {
        public let sequence: Int64
        public let attempt: Int
        public let at: Date
        public let duration: Duration
        public let status: Int

        public init(sequence: Int64, attempt: Int, at: Date, duration: Duration, status: Int) {
            self.sequence = sequence
            self.attempt = attempt
            self.at = at
            self.duration = duration
            self.status = status
        }
    }

    /// Moves the cursor to `through` (never back) and records `delivered`, in one statement, if `holder` still
    /// holds the lease at `generation`; answers whether it did (if not, the endpoint is someone else's now, or
    /// its cursor was moved: the deliverer stops). Delivered events clear the failure state.
    public func advance(_ id: UUID, holder: UUID, generation: Int64, through: Int64, delivered: [Delivered],
                        lease: Duration) async throws -> Bool {
        try await database.translatingErrors {
            let rows = try await database.execute("""
                WITH moved AS (
                    UPDATE webhook_endpoints
                    SET delivered_through = greatest(delivered_through, \(through)),
                        lease_until = now() + make_interval(secs => \(lease.seconds)),
                        failing_since = CASE WHEN \(!delivered.isEmpty) THEN NULL ELSE failing_since END,
                        failed_attempts = CASE WHEN \(!delivered.isEmpty) THEN 0 ELSE failed_attempts END,
                        next_attempt_at = CASE WHEN \(!delivered.isEmpty) THEN NULL ELSE next_attempt_at END
                    WHERE id = \(id) AND lease_holder = \(holder) AND generation = \(generation)
                    RETURNING id),
                recorded AS (
                    INSERT INTO webhook_attempts (endpoint_id, sequence, attempt, at, duration_ms, status, outcome)
                    SELECT moved.id, d.sequence, d.attempt, d.at, d.duration_ms, d.status, 'delivered'
                    FROM moved, unnest(\(delivered.map(\.sequence))::bigint[], \(delivered.map { Int64($0.attempt) })::bigint[],
                                       \(delivered.map(\.at))::timestamptz[],
                                       \(delivered.map { Int64($0.duration.milliseconds) })::bigint[],
                                       \(delivered.map { Int64($0.status) })::bigint[])
                         AS d(sequence, attempt, at, duration_ms, status)
                    RETURNING 1)
                SELECT count(*) FROM moved
                """)
            return try rows.first?.decode(Int64.self) == 1
        }
    }

    /// Records a failed (or refused) attempt at the event after the cursor and when the next is due, if `holder`
    /// still holds the lease at `generation`; answers whether it did.
    public func recordFailure(_ id: UUID, holder: UUID, generation: Int64, sequence: Int64, attempt: Int, at: Date,
                              duration: Duration, status: Int?, outcome: WebhookAttempt.Outcome, error: String,
                              failingSince: Date, nextAttemptAt: Date) async throws -> Bool {
        try await database.translatingErrors {
            let rows = try await database.execute("""
                WITH failed AS (
                    UPDATE webhook_endpoints
                    SET failing_since = \(failingSince), failed_attempts = \(attempt), next_attempt_at = \(nextAttemptAt)
                    WHERE id = \(id) AND lease_holder = \(holder) AND generation = \(generation)
                    RETURNING id)
                INSERT INTO webhook_attempts (endpoint_id, sequence, attempt, at, duration_ms, status, outcome, error)
                SELECT id, \(sequence), \(attempt), \(at), \(duration.milliseconds), \(status), \(outcome.rawValue),
                       \(String(error.prefix(1000)))
                FROM failed
                RETURNING 1
                """)
            return !rows.isEmpty
        }
    }

    /// Records the last failed attempt and stops the endpoint's deliveries with `reason` and its
    /// `webhook_disabled` event, if `holder` still holds the lease at `generation`; answers whether it did.
    public func disable(_ id: UUID, holder: UUID, generation: Int64, sequence: Int64, attempt: Int, at: Date,
                        duration: Duration, status: Int?, outcome: WebhookAttempt.Outcome, error: String,
                        reason: String, event: HistoryRecord) async throws -> Bool {
        try await database.translatingErrors {
            let rows = try await database.execute("""
                WITH disabled AS (
                    UPDATE webhook_endpoints
                    SET disabled_at = \(at), disabled_reason = \(String(reason.prefix(1000))), failed_attempts = \(attempt),
                        next_attempt_at = NULL, lease_holder = NULL, lease_until = NULL
                    WHERE id = \(id) AND lease_holder = \(holder) AND generation = \(generation)
                    RETURNING id),
                recorded AS (
                    INSERT INTO webhook_attempts (endpoint_id, sequence, attempt, at, duration_ms, status, outcome, error)
                    SELECT id, \(sequence), \(attempt), \(at), \(duration.milliseconds), \(status), \(outcome.rawValue),
                           \(String(error.prefix(1000)))
                    FROM disabled)
                SELECT history_append(\(HistoryRecordJSON.text(event))::jsonb) FROM disabled
                """)
            return !rows.isEmpty
        }
    }

    /// How many attempts each endpoint keeps; older ones are deleted by ``prune(_:)``.
    public static let keptAttempts = 10_000

    /// Deletes the endpoint's attempts beyond the newest ``keptAttempts``.
    public func prune(_ id: UUID) async throws {
        try await database.translatingErrors {
            try await database.execute("""
                DELETE FROM webhook_attempts
                WHERE endpoint_id = \(id) AND id <= (
                    SELECT id FROM webhook_attempts WHERE endpoint_id = \(id)
                    ORDER BY id DESC OFFSET \(Self.keptAttempts) LIMIT 1)
                """)
        }
    }

    static func endpoint(from row: PostgresRow) throws -> WebhookEndpoint {
        let columns = row.makeRandomAccess()
        func value<T: PostgresDecodable>(_ name: String, _ type: T.Type = T.self) throws -> T {
            try columns[name].decode(T.self)
        }
        let urlText: String = try value("url")
        guard let url = try? WebhookURL(urlText) else {
            throw StoreInvariantViolation(description: "a webhook URL the rules refuse in the database")
        }
        var kinds: Set<HistoryKind>?
        if let names = try value("kinds", [String]?.self) {
            kinds = Set(try names.map { name in
                guard let kind = HistoryKind(rawValue: name) else {
                    throw StoreInvariantViolation(description: "unknown kind \(name) in a webhook's filter")
                }
                return kind
            })
        }
        return WebhookEndpoint(
            id: try value("id"), url: url, apps: try value("apps", [String]?.self).map(Set.init), kinds: kinds,
            createdAt: try value("created_at"), deliveredThrough: try value("delivered_through"),
            failingSince: try value("failing_since"), failedAttempts: try value("failed_attempts"),
            nextAttemptAt: try value("next_attempt_at"), disabledAt: try value("disabled_at"),
            disabledReason: try value("disabled_reason"))
    }
}

extension Duration {
    /// Whole milliseconds (rounded down).
    var milliseconds: Int {
        let (seconds, attoseconds) = components
        return Int(seconds) * 1_000 + Int(attoseconds / 1_000_000_000_000_000)
    }

    /// Seconds as a `Double`, for `make_interval`.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

extension Database {
    public var webhooks: WebhookRepository { WebhookRepository(database: self) }
}
