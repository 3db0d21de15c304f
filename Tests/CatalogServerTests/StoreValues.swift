import CatalogStore
import PostgresNIO

/// Direct reads of the test database, for what the API does not show (hashes, raw rows).
enum StoreValues {
    static func strings(_ sql: String, in database: Database) async throws -> [String] {
        var values: [String] = []
        for try await value in try await database.client.query(PostgresQuery(unsafeSQL: sql)).decode(String.self) {
            values.append(value)
        }
        return values
    }
}
