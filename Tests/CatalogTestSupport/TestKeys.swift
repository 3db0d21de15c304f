import CatalogCore
import CatalogStore
import Foundation

/// API keys made directly in a test database, as `iap-server create-key` makes them.
public enum TestKeys {
    /// A new key's token.
    public static func make(_ role: KeyRole, apps: [String]? = nil, name: String? = nil, in url: DatabaseURL)
        async throws -> String
    {
        try await TestDatabase.withDatabase(url) { database in
            let token = KeyToken.generate()
            let key = APIKey(id: UUID(), name: name ?? "\(role.rawValue) test key", role: role, apps: apps.map(Set.init),
                             createdAt: Date(), expiresAt: nil, revokedAt: nil)
            try await database.keys.create(key, token: token, event: HistoryRecord(
                kind: .keyCreated, bundleID: nil, actor: Actor(keyID: nil, name: "tests", role: .admin)))
            return token.text
        }
    }
}
