import CatalogStore

/// A change feed running on a suite's own database, for the tests of what reads it.
public enum ChangeFeedFixture {
    /// Runs `body` with a feed running on the database of `suite`.
    public static func withFeed<Result: Sendable>(
        _ suite: String, _ body: @Sendable (CatalogChanges, Database, DatabaseURL) async throws -> Result
    ) async throws -> Result {
        let url = try await TestDatabase.forSuite(suite)
        return try await TestDatabase.withDatabase(url) { database in
            let changes = CatalogChanges(database: database, logger: TestDatabase.logger)
            return try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await changes.run() }
                defer { group.cancelAll() }
                return try await body(changes, database, url)
            }
        }
    }

    /// The feed's readable position once it has one: it starts listening in the background, which takes a
    /// while when every suite runs at once.
    public static func position(_ changes: CatalogChanges) async throws -> Int64 {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            _ = try await changes.events(after: .max, limit: 1, fresh: true)
            if let position = changes.readableThrough { return position }
        }
        throw FeedNotListening()
    }

    /// The first page after `sequence` that holds at least `count` events, read again for up to 30 seconds.
    public static func page(_ changes: CatalogChanges, after sequence: Int64, count: Int) async throws -> EventPage {
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            let page = try await changes.events(after: sequence, limit: 100, fresh: true)
            if page.events.count >= count || ContinuousClock.now > deadline { return page }
        }
    }

    public struct FeedNotListening: Error {}
}
