import PostgresNIO

extension Database {
    /// Listens on `channel` on a connection of its own until cancelled or the connection fails (then it
    /// throws, and the caller listens again): `listening` runs once the subscription is in place, so that
    /// whatever it reads cannot miss a change; `notified` runs with each notification's payload.
    func listen(on channel: String, listening: @Sendable () async throws -> Void,
                notified: @Sendable (String) async -> Void) async throws {
        try await client.withConnection { connection in
            try await connection.listen(on: channel) { notifications in
                try await listening()
                for try await notification in notifications {
                    await notified(notification.payload)
                }
            }
        }
    }
}
