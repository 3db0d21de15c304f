import CatalogCore
import Foundation
import PostgresNIO

/// Apps in PostgreSQL.
public struct AppRepository: Sendable {
    let database: Database

    static let columnList = ["bundle_id", "name", "newsstand", "primary_locale", "created_at", "updated_at"]
    static let columns = columnList.joined(separator: ", ")

    /// Stores a new app with its `app_created` event.
    public func create(_ app: App, event: HistoryRecord) async throws {
        try await database.translatingErrors {
            try await database.execute("""
                WITH created AS (
                    INSERT INTO apps (bundle_id, name, newsstand, primary_locale, created_at, updated_at)
                    VALUES (\(app.bundleID), \(app.name), \(app.newsstand), \(app.primaryLocale), \(app.createdAt),
                            \(app.updatedAt))
                    RETURNING 1)
                SELECT history_append(\(HistoryRecordJSON.text(event))::jsonb) FROM created
                """)
        }
    }

    public func find(_ bundleID: String) async throws -> App? {
        try await database.execute(Find(bundleID: bundleID)).first.map { try Self.app(from: $0) }
    }

    struct Find: PreparedQuery {
        static let name = "AppRepository.Find"
        static let sql = "SELECT \(AppRepository.columns) FROM apps WHERE bundle_id = $1"
        static let bindingDataTypes: [PostgresDataType] = [.text]
        let bundleID: String

        func makeBindings() -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 1)
            bindings.append(bundleID)
            return bindings
        }
    }

    /// One page of apps in bundle-id order, after `cursor`, limited to `visible` apps when given.
    public func list(after cursor: String?, limit: Int, visible: Set<String>?) async throws -> [App] {
        try await database.translatingErrors {
            let rows = try await database.query("""
                SELECT \(unescaped: Self.columns) FROM apps
                WHERE (\(visible.map { Array($0) })::text[] IS NULL OR bundle_id = ANY(\(visible.map { Array($0) })::text[]))
                  AND (\(cursor)::text IS NULL OR bundle_id > \(cursor))
                ORDER BY bundle_id LIMIT \(limit)
                """)
            var apps: [App] = []
            for try await row in rows { apps.append(try Self.app(from: row)) }
            return apps
        }
    }

    /// Writes an edited app with its `app_edited` event.
    public func update(_ app: App, event: HistoryRecord) async throws {
        try await database.translatingErrors {
            try await database.execute("""
                WITH changed AS (
                    UPDATE apps SET name = \(app.name), newsstand = \(app.newsstand),
                                    primary_locale = \(app.primaryLocale), updated_at = \(app.updatedAt)
                    WHERE bundle_id = \(app.bundleID)
                    RETURNING 1)
                SELECT history_append(\(HistoryRecordJSON.text(event))::jsonb) FROM changed
                """)
        }
    }

    /// Whether the app has a free subscription, which only a Newsstand app may have.
    public func hasFreeSubscription(_ bundleID: String) async throws -> Bool {
        try await database.translatingErrors {
            let rows = try await database.query("""
                SELECT EXISTS (SELECT 1 FROM products WHERE app = \(bundleID) AND type = 'FREE_SUBSCRIPTION')
                """)
            for try await exists in rows.decode(Bool.self) { return exists }
            return false
        }
    }

    /// The app from its columns in `row`, named `prefix` + the column's name (a row that holds more than the
    /// app prefixes them).
    static func app(from row: PostgresRow, prefix: String = "") throws -> App {
        let columns = row.makeRandomAccess()
        func value<T: PostgresDecodable>(_ name: String, _ type: T.Type = T.self) throws -> T {
            try columns[prefix + name].decode(T.self)
        }
        return App(bundleID: try value("bundle_id"), name: try value("name"), newsstand: try value("newsstand"),
                   primaryLocale: try value("primary_locale"), createdAt: try value("created_at"),
                   updatedAt: try value("updated_at"))
    }
}
