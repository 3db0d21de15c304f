import CatalogAPI
import CatalogCore
import CatalogTestSupport
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import PurchaseCore
import Testing

/// `GET/PUT …/store-settings`: admins only; the shared secret is write-only, never in an answer, the history
/// or an export.
@Suite("Store settings API")
struct StoreSettingsAPITests {
    static let suite = "store_settings_api"
    static let secret = "5ecre7-0123456789abcdef0123456789"

    @Test("defaults, a replacement, the secret kept, cleared; developers cannot; history says only set/changed/removed")
    func settings() async throws {
        let fixture = try await APIFixture.forSuite(Self.suite)
        try await fixture.purchases { api in
            let world = try await PurchaseWorld.make(api, fixture: fixture, app: "com.settings.admin")
            let path = "/v1/apps/\(world.app)/store-settings"
            let defaults = try expect(try await api.send(.get, path, key: world.keys.admin), .ok,
                                      as: Components.Schemas.StoreSettings.self)
            #expect(defaults.environments == [.production, .sandbox] && !defaults.acceptXcode)
            #expect(!defaults.sharedSecretSet && defaults.version == 0 && defaults.appAppleId == nil)
            let set = try await api.send(.put, path, key: world.keys.admin,
                                         json: ["sharedSecret": Self.secret, "appAppleId": 1_234_567_890,
                                                "environments": ["Production"], "acceptXcode": true])
            let saved = try expect(set, .ok, as: Components.Schemas.StoreSettings.self)
            #expect(saved.sharedSecretSet && saved.version == 1 && saved.environments == [.production] && saved.acceptXcode)
            #expect(!String(buffer: set.body).contains(Self.secret))
            // A replacement without the secret keeps it; the rest takes its defaults.
            let kept = try expect(try await api.send(.put, path, key: world.keys.admin, json: ["appAppleId": 1_234_567_890]),
                                  .ok, as: Components.Schemas.StoreSettings.self)
            #expect(kept.sharedSecretSet && kept.environments == [.production, .sandbox] && !kept.acceptXcode)
            let changed = try expect(try await api.send(.put, path, key: world.keys.admin,
                                                        json: ["sharedSecret": Self.secret + "x"]), .ok,
                                     as: Components.Schemas.StoreSettings.self)
            #expect(changed.version == 3)
            let cleared = try expect(try await api.send(.put, path, key: world.keys.admin, json: ["clearSharedSecret": true]),
                                     .ok, as: Components.Schemas.StoreSettings.self)
            #expect(!cleared.sharedSecretSet)
            // The same again changes nothing and writes nothing.
            let same = try expect(try await api.send(.put, path, key: world.keys.admin, json: ["clearSharedSecret": true]),
                                  .ok, as: Components.Schemas.StoreSettings.self)
            #expect(same.version == cleared.version)
            let refusal = try problem(try await api.send(.put, path, key: world.keys.admin,
                                                         json: ["sharedSecret": "has space", "clearSharedSecret": true]),
                                      .unprocessableContent, "validation-failed")
            #expect(Set(refusal.errors?.map(\.field) ?? []) == ["sharedSecret", "clearSharedSecret"])
            #expect(refusal.detail?.contains("has space") == false)
            _ = try problem(try await api.send(.put, path, key: world.keys.admin, json: ["environments": ["Xcode"]]),
                            .unprocessableContent, "validation-failed")
            for key in [world.keys.developer, world.keys.auditor, world.client] {
                _ = try problem(try await api.send(.put, path, key: key, json: ["acceptXcode": true]), .forbidden, "forbidden")
                _ = try problem(try await api.send(.get, path, key: key), .forbidden, "forbidden")
            }
            // History and its exports: the secret as set, changed, removed.
            let events = try expect(try await api.send(.get, "/v1/history?app=\(world.app)&kind=store_settings_changed&order=oldest",
                                                       key: world.keys.auditor), .ok,
                                    as: Components.Schemas.HistoryPage.self).items
            #expect(events.count == 4)
            let secretChanges = events.compactMap { event in event.changes.first { $0.field == "sharedSecret" } }
            #expect(secretChanges.count == 3)
            for format in ["text/csv", "application/x-ndjson", "application/json"] {
                let export = try await api.send(.get, "/v1/history?app=\(world.app)", key: world.keys.auditor,
                                                headers: [.accept: format])
                let text = String(buffer: export.body)
                #expect(text.contains("store_settings_changed") && text.contains("changed") && text.contains("removed"))
                #expect(!text.contains(Self.secret), "\(format)")
            }
        }
    }

    @Test("an app's store settings are its own: another app's admin finds nothing")
    func scoped() async throws {
        let fixture = try await APIFixture.forSuite(Self.suite)
        try await fixture.purchases { api in
            let world = try await PurchaseWorld.make(api, fixture: fixture, app: "com.settings.scoped")
            try await api.createApp("com.settings.elsewhere", key: world.keys.admin)
            let elsewhere = try await fixture.key(.admin, apps: ["com.settings.elsewhere"])
            _ = try problem(try await api.send(.get, "/v1/apps/\(world.app)/store-settings", key: elsewhere), .notFound, "not-found")
            _ = try problem(try await api.send(.put, "/v1/apps/\(world.app)/store-settings", key: elsewhere,
                                               json: ["acceptXcode": true]), .notFound, "not-found")
            _ = try problem(try await api.send(.get, "/v1/apps/com.settings.none/store-settings", key: world.keys.admin),
                            .notFound, "not-found")
        }
    }

    @Test("If-Match: a PUT replaces only the version it names; a stale one is 412 and changes nothing")
    func ifMatch() async throws {
        let fixture = try await APIFixture.forSuite(Self.suite)
        try await fixture.purchases { api in
            let world = try await PurchaseWorld.make(api, fixture: fixture, app: "com.settings.ifmatch")
            let path = "/v1/apps/\(world.app)/store-settings"
            func put(_ tag: String, _ appleID: Int) async throws -> TestResponse {
                try await api.send(.put, path, key: world.keys.admin, json: ["appAppleId": appleID], headers: [.ifMatch: tag])
            }
            let first = try expect(try await put("\"0\"", 11), .ok, as: Components.Schemas.StoreSettings.self)
            #expect(first.version == 1 && first.appAppleId == 11, "the defaults are version 0")
            let stale = try problem(try await put("\"0\"", 22), .preconditionFailed, "precondition-failed")
            #expect(stale.detail?.contains("\"1\"") == true, "\(stale)")
            let kept = try expect(try await api.send(.get, path, key: world.keys.admin), .ok, as: Components.Schemas.StoreSettings.self)
            #expect(kept.version == 1 && kept.appAppleId == 11, "a stale If-Match changes nothing")
            // A stale tag is refused even when the body would change nothing.
            _ = try problem(try await put("\"0\"", 11), .preconditionFailed, "precondition-failed")
            let second = try expect(try await put("\"1\"", 22), .ok, as: Components.Schemas.StoreSettings.self)
            #expect(second.version == 2 && second.appAppleId == 22)
            let any = try expect(try await put("*", 33), .ok, as: Components.Schemas.StoreSettings.self)
            #expect(any.version == 3)
            let history = try expect(try await api.send(.get, "/v1/history?app=\(world.app)&kind=store_settings_changed",
                                                        key: world.keys.auditor), .ok, as: Components.Schemas.HistoryPage.self)
            #expect(history.items.count == 3, "one event per replacement, none for the refused ones")
        }
    }
}
