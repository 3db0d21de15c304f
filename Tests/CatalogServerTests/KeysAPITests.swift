import CatalogAPI
import CatalogCore
import CatalogTestSupport
import Foundation
import HTTPTypes
import NIOCore
import HummingbirdTesting
import Testing

/// API keys: shown once, stored as hashes, revoked at once, limited to apps.
@Suite("Keys over HTTP")
struct KeysAPITests {
    @Test("a new key's token is in the creation answer only; it works at once; the database holds only its hash")
    func createAndUse() async throws {
        let fixture = try await APIFixture.forSuite("keys_api")
        let admin = try await fixture.key(.admin)
        let created = try await fixture.run { api in
            let created = try expect(try await api.send(.post, "/v1/keys", key: admin,
                                                        json: ["role": "developer", "name": "Ann's laptop"]),
                                     .created, as: Components.Schemas.CreatedKey.self)
            #expect(created.token.hasPrefix("iapk_") && created.token.count > 40)
            let me = try expect(try await api.send(.get, "/v1/me", key: created.token), .ok, as: Components.Schemas.Key.self)
            #expect(me.id == created.id && me.role == .developer && me.name == "Ann's laptop" && me.apps == nil)
            let listed = try await api.send(.get, "/v1/keys", key: admin)
            #expect(!String(buffer: listed.body).contains(created.token))
            #expect(try expect(listed, .ok, as: Components.Schemas.KeyList.self).items.contains { $0.id == created.id })
            return created
        }
        let stored = try await TestDatabase.withDatabase(fixture.url) { database in
            try await StoreValues.strings("SELECT encode(token_hash, 'escape') FROM api_keys", in: database)
        }
        #expect(!stored.contains { $0.contains(created.token) })
    }

    @Test("revocation takes effect at once: the next request is 401")
    func revocation() async throws {
        let fixture = try await APIFixture.forSuite("keys_api")
        let admin = try await fixture.key(.admin)
        try await fixture.run { api in
            let created = try expect(try await api.send(.post, "/v1/keys", key: admin,
                                                        json: ["role": "auditor", "name": "temporary"]),
                                     .created, as: Components.Schemas.CreatedKey.self)
            #expect(try await api.send(.get, "/v1/apps", key: created.token).status == .ok)
            #expect(try await api.send(.delete, "/v1/keys/\(created.id)", key: admin).status == .noContent)
            _ = try problem(try await api.send(.get, "/v1/apps", key: created.token), .unauthorized, "unauthorized")
            // Revoking again changes nothing; an unknown key is not found.
            #expect(try await api.send(.delete, "/v1/keys/\(created.id)", key: admin).status == .noContent)
            _ = try problem(try await api.send(.delete, "/v1/keys/\(UUID().uuidString)", key: admin), .notFound, "not-found")
        }
    }

    @Test("a key is answered from memory until the database notifies that a key changed, then refused")
    func cachedUntilNotified() async throws {
        let fixture = try await APIFixture.forSuite("keys_api_notices")
        let auditor = try await fixture.key(.auditor, name: "cached")
        let silently: @Sendable (String) async throws -> Void = { change in
            try await TestDatabase.execute("ALTER TABLE api_keys DISABLE TRIGGER api_keys_notify", in: fixture.url)
            try await TestDatabase.execute("UPDATE api_keys SET \(change) WHERE name = 'cached'", in: fixture.url)
            try await TestDatabase.execute("ALTER TABLE api_keys ENABLE TRIGGER api_keys_notify", in: fixture.url)
        }
        try await fixture.run { api in
            // Revoked without the notice, the key still works: the server did not read it again. (Until the
            // server listens, shortly after it starts, it keeps no key: then the revocation is seen, and undone.)
            var fromMemory = false
            for _ in 0..<50 where !fromMemory {
                #expect(try await api.send(.get, "/v1/me", key: auditor).status == .ok)
                try await silently("revoked_at = now()")
                fromMemory = try await api.send(.get, "/v1/me", key: auditor).status == .ok
                if !fromMemory {
                    try await silently("revoked_at = NULL")
                    try await Task.sleep(for: .milliseconds(100))
                }
            }
            #expect(fromMemory, "the key was read from the database every time")
            // The revocation as anyone makes it (SQL here; the API does the same UPDATE) notifies, and the key is
            // refused. (How soon is measured by ProcessTests, alone on the machine: here the whole suite runs.)
            try await TestDatabase.execute("UPDATE api_keys SET revoked_at = now() WHERE name = 'cached'", in: fixture.url)
            let clock = ContinuousClock()
            let start = clock.now
            var status = try await api.send(.get, "/v1/me", key: auditor).status
            while status == .ok, clock.now - start < .seconds(20) {
                try await Task.sleep(for: .milliseconds(5))
                status = try await api.send(.get, "/v1/me", key: auditor).status
            }
            #expect(status == .unauthorized, "still accepted \(clock.now - start) after the revocation committed")
        }
    }

    @Test("an expired key is refused")
    func expired() async throws {
        let fixture = try await APIFixture.forSuite("keys_api")
        let admin = try await fixture.key(.admin)
        try await fixture.run { api in
            let past = Date().addingTimeInterval(-60).formatted(.iso8601)
            let created = try expect(try await api.send(.post, "/v1/keys", key: admin,
                                                        json: ["role": "admin", "name": "old", "expiresAt": past]),
                                     .created, as: Components.Schemas.CreatedKey.self)
            _ = try problem(try await api.send(.get, "/v1/me", key: created.token), .unauthorized, "unauthorized")
        }
    }

    @Test("a key limited to apps must name existing apps; its holder sees only them")
    func limitedKeys() async throws {
        let fixture = try await APIFixture.forSuite("keys_api")
        let admin = try await fixture.key(.admin)
        try await fixture.run { api in
            try await api.createApp("com.keys.one", key: admin)
            try await api.createApp("com.keys.two", key: admin)
            let missing = try problem(try await api.send(.post, "/v1/keys", key: admin, json: [
                "role": "developer", "name": "x", "apps": ["com.keys.one", "com.keys.none"]]), .unprocessableContent,
                                      "validation-failed")
            #expect(missing.errors?.map(\.field) == ["apps[1]"])
            let limited = try expect(try await api.send(.post, "/v1/keys", key: admin, json: [
                "role": "admin", "name": "one only", "apps": ["com.keys.one"]]), .created, as: Components.Schemas.CreatedKey.self)
            let apps = try expect(try await api.send(.get, "/v1/apps", key: limited.token), .ok, as: Components.Schemas.AppPage.self)
            #expect(apps.items.map(\.bundleId) == ["com.keys.one"])
            // A limited admin sees the keys within its apps only.
            let keys = try expect(try await api.send(.get, "/v1/keys", key: limited.token), .ok, as: Components.Schemas.KeyList.self)
            #expect(keys.items.allSatisfy { $0.apps?.allSatisfy { $0 == "com.keys.one" } == true })
        }
    }

    @Test("key changes are history events naming who made them, never the token")
    func keyHistory() async throws {
        let fixture = try await APIFixture.forSuite("keys_api")
        let admin = try await fixture.key(.admin, name: "root")
        let token = try await fixture.run { api in
            try expect(try await api.send(.post, "/v1/keys", key: admin, json: ["role": "reviewer", "name": "App Review relay"]),
                       .created, as: Components.Schemas.CreatedKey.self).token
        }
        let events = try await TestDatabase.withDatabase(fixture.url) { database in
            try await StoreValues.strings("""
                SELECT actor_name || ' ' || kind || ' ' || changes::text FROM history_events
                WHERE kind = 'key_created' AND actor_name = 'root'
                """, in: database)
        }
        #expect(events.count == 1 && events[0].contains("App Review relay") && !events[0].contains(token))
    }

    @Test("role and field rules for new keys")
    func badKeys() async throws {
        let fixture = try await APIFixture.forSuite("keys_api")
        let admin = try await fixture.key(.admin)
        try await fixture.run { api in
            for body: [String: any Sendable] in [["role": "root", "name": "x"], ["role": "admin", "name": ""],
                                                  ["role": "admin", "name": "x", "apps": [String]()], ["name": "x"]] {
                let response = try await api.send(.post, "/v1/keys", key: admin, json: body)
                #expect(response.status == .unprocessableContent || response.status == .badRequest)
            }
        }
    }
}
