import CatalogCore
import Foundation
import PostgresNIO
import PurchaseCore

/// Store settings per app, in PostgreSQL. An app without a row has ``StoreSettings/defaults``.
public struct StoreSettingsRepository: Sendable {
    let database: Database

    /// The app's settings, or `nil` when there is no such app.
    public func find(_ bundleID: String) async throws -> StoreSettings? {
        guard let row = try await database.execute(Find(bundleID: bundleID)).first else { return nil }
        let columns = row.makeRandomAccess()
        guard try columns["version"].decode(Int?.self) != nil else { return .defaults }
        let environments = try columns["environments"].decode([String].self)
        return StoreSettings(
            appAppleId: try columns["app_apple_id"].decode(Int64?.self),
            sharedSecret: try columns["shared_secret"].decode(String?.self).map(AppStoreSharedSecret.init),
            environments: Set(environments.compactMap(AppStoreEnvironment.init(rawValue:))),
            acceptXcode: try columns["accept_xcode"].decode(Bool.self),
            manyStoreAccountsLimit: try columns["many_store_accounts_limit"].decode(Int.self),
            manyStoreAccountsWindowHours: try columns["many_store_accounts_window_hours"].decode(Int.self),
            version: try columns["version"].decode(Int.self),
            updatedAt: try columns["updated_at"].decode(Date?.self))
    }

    /// The app and its settings in one read (every intake asks both).
    struct Find: PreparedQuery {
        static let name = "StoreSettingsRepository.Find"
        static let sql = """
            SELECT s.app_apple_id, s.shared_secret, s.environments::text[] AS environments, s.accept_xcode,
                   s.many_store_accounts_limit, s.many_store_accounts_window_hours, s.version, s.updated_at
            FROM apps a LEFT JOIN store_settings s ON s.app = a.bundle_id
            WHERE a.bundle_id = $1
            """
        static let bindingDataTypes: [PostgresDataType] = [.text]
        let bundleID: String

        func makeBindings() -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 1)
            bindings.append(bundleID)
            return bindings
        }
    }

    /// Writes `settings` if the app's settings are still at `previousVersion` (0: the defaults, no row yet), with
    /// its `store_settings_changed` event; answers the settings saved (their version and time), or `nil` when
    /// someone changed them since they were read.
    public func save(_ settings: StoreSettings, in bundleID: String, previousVersion: Int, event: HistoryRecord)
        async throws -> StoreSettings?
    {
        let rows = try await database.execute("""
            WITH saved AS (
                INSERT INTO store_settings AS s (app, app_apple_id, shared_secret, environments, accept_xcode,
                                                 many_store_accounts_limit, many_store_accounts_window_hours, version,
                                                 updated_at)
                VALUES (\(bundleID), \(settings.appAppleId), \(settings.sharedSecret?.text),
                        \(settings.sortedEnvironments)::store_environment[], \(settings.acceptXcode),
                        \(settings.manyStoreAccountsLimit), \(settings.manyStoreAccountsWindowHours),
                        \(previousVersion + 1), now())
                ON CONFLICT (app) DO UPDATE SET
                    app_apple_id = EXCLUDED.app_apple_id, shared_secret = EXCLUDED.shared_secret,
                    environments = EXCLUDED.environments, accept_xcode = EXCLUDED.accept_xcode,
                    many_store_accounts_limit = EXCLUDED.many_store_accounts_limit,
                    many_store_accounts_window_hours = EXCLUDED.many_store_accounts_window_hours,
                    version = EXCLUDED.version, updated_at = EXCLUDED.updated_at
                WHERE s.version = \(previousVersion)
                RETURNING s.version, s.updated_at)
            SELECT version, updated_at, history_append(\(HistoryRecordJSON.text(event))::jsonb) FROM saved
            """)
        guard let row = rows.first else { return nil }
        let (version, updatedAt, _) = try row.decode((Int, Date, Int64).self)
        var saved = settings
        saved.version = version
        saved.updatedAt = updatedAt
        return saved
    }
}
