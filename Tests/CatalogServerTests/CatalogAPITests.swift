import CatalogAPI
import CatalogCore
import CatalogStore
import CatalogTestSupport
import Foundation
import HTTPTypes
import NIOCore
import HummingbirdTesting
import Testing
import Yams

/// Apps, subscription groups, listing and pagination, health and the served OpenAPI document.
@Suite("Catalog over HTTP")
struct CatalogAPITests {
    @Test("health: live always, ready with the migrations current; both without a key")
    func health() async throws {
        let fixture = try await APIFixture.forSuite("catalog_api")
        try await fixture.run { api in
            #expect(try expect(try await api.send(.get, "/v1/health/live"), .ok, as: Components.Schemas.Health.self).status == .ok)
            let ready = try expect(try await api.send(.get, "/v1/health/ready"), .ok, as: Components.Schemas.Health.self)
            #expect(ready.schemaVersion ?? 0 >= 1)
        }
    }

    @Test("not ready while any migration of this build is missing, an earlier one as much as the newest")
    func readinessNeedsEveryMigration() async throws {
        // A database of its own: the test removes migrations' records from it.
        let fixture = try await APIFixture.forSuite("readiness_every_migration")
        let versions = try Migrator.bundled().map(\.version)
        let earlier = try #require(versions.dropLast().last)
        try await fixture.run { api in
            #expect(try await api.send(.get, "/v1/health/ready").status == .ok)
            // A gap below the newest: the newest is applied, yet the database is not current.
            try await TestDatabase.execute("DELETE FROM schema_migrations WHERE version = \(earlier)", in: fixture.url)
            let gap = try await api.send(.get, "/v1/health/ready")
            #expect(gap.status == .serviceUnavailable)
            let problem = String(buffer: gap.body)
            #expect(problem.contains("lacks 1 of this server's \(versions.count) migrations (\(earlier))"), "\(problem)")
            #expect(gap.headers[.retryAfter] == "2")
            // Only the first applied.
            try await TestDatabase.execute("DELETE FROM schema_migrations WHERE version > \(versions[0])", in: fixture.url)
            #expect(try await api.send(.get, "/v1/health/ready").status == .serviceUnavailable)
        }
    }

    @Test("the OpenAPI document is served as it is built, and every operation in it is routed")
    func openAPIDocument() async throws {
        let fixture = try await APIFixture.forSuite("catalog_api")
        try await fixture.run { api in
            let response = try await api.send(.get, "/openapi.yaml")
            #expect(response.status == .ok && response.headers[.contentType] == "application/yaml")
            let document = try #require(try Yams.load(yaml: String(buffer: response.body)) as? [String: Any])
            #expect(document["openapi"] as? String == "3.1.0")
            let paths = try #require(document["paths"] as? [String: Any])
            for (path, item) in paths {
                for method in (item as? [String: Any] ?? [:]).keys where ["get", "post", "patch", "delete"].contains(method) {
                    let concrete = path.replacingOccurrences(of: "{bundleId}", with: "com.none")
                        .replacingOccurrences(of: "{productId}", with: "none").replacingOccurrences(of: "{groupId}", with: UUID().uuidString)
                        .replacingOccurrences(of: "{keyId}", with: UUID().uuidString)
                    let answer = try await api.send(HTTPRequest.Method(method.uppercased())!, concrete, body: method == "get" || method == "delete" ? nil : "{}")
                    let problem = String(buffer: answer.body)
                    #expect(!(answer.status == .notFound && problem.contains("no such route")), "\(method) \(path) is not routed")
                }
            }
        }
    }

    @Test("apps: create, read, list with a cursor, edit with history")
    func apps() async throws {
        let fixture = try await APIFixture.forSuite("catalog_api")
        let admin = try await fixture.key(.admin)
        try await fixture.run { api in
            for index in 0..<5 { try await api.createApp("com.apps.list\(index)", key: admin) }
            let first = try expect(try await api.send(.get, "/v1/apps?limit=2", key: admin), .ok, as: Components.Schemas.AppPage.self)
            #expect(first.items.count == 2)
            var seen = first.items.map(\.bundleId)
            var cursor = first.nextCursor
            while let next = cursor {
                let page = try expect(try await api.send(.get, "/v1/apps?limit=2&cursor=\(next)", key: admin), .ok,
                                      as: Components.Schemas.AppPage.self)
                seen += page.items.map(\.bundleId)
                cursor = page.nextCursor
            }
            #expect(seen == seen.sorted() && Set(seen).isSuperset(of: (0..<5).map { "com.apps.list\($0)" }))
            _ = try problem(try await api.send(.post, "/v1/apps", key: admin, json: ["bundleId": "com.apps.list0", "name": "Dup"]),
                            .conflict, "conflict")
            let edited = try expect(try await api.send(.patch, "/v1/apps/com.apps.list0", key: admin,
                                                       json: ["name": "Renamed", "primaryLocale": "fr-FR"]), .ok,
                                    as: Components.Schemas.App.self)
            #expect(edited.name == "Renamed" && edited.primaryLocale == "fr-FR")
            let bad = try problem(try await api.send(.post, "/v1/apps", key: admin,
                                                     json: ["bundleId": "bad id!", "name": "", "primaryLocale": "english"]),
                                  .unprocessableContent, "validation-failed")
            #expect(bad.errors?.map(\.field) == ["bundleId", "name", "primaryLocale"])
        }
    }

    @Test("subscription groups: create, list, read, edit; names unique within the app")
    func groups() async throws {
        let fixture = try await APIFixture.forSuite("catalog_api")
        let admin = try await fixture.key(.admin)
        let developer = try await fixture.key(.developer)
        try await fixture.run { api in
            let app = "com.groups.app"
            try await api.createApp(app, key: admin)
            let group = try expect(try await api.send(.post, "/v1/apps/\(app)/subscription-groups", key: developer, json: [
                "referenceName": "Pro", "localizations": [["locale": "en-US", "name": "Pro Pass"]]]), .created,
                                   as: Components.Schemas.SubscriptionGroup.self)
            _ = try problem(try await api.send(.post, "/v1/apps/\(app)/subscription-groups", key: developer,
                                               json: ["referenceName": "Pro"]), .conflict, "conflict")
            let edited = try expect(try await api.send(.patch, "/v1/apps/\(app)/subscription-groups/\(group.id)", key: developer,
                                                       json: ["referenceName": "Pro+"]), .ok, as: Components.Schemas.SubscriptionGroup.self)
            #expect(edited.referenceName == "Pro+" && edited.localizations.first?.name == "Pro Pass")
            let listed = try expect(try await api.send(.get, "/v1/apps/\(app)/subscription-groups", key: developer), .ok,
                                    as: Components.Schemas.SubscriptionGroupList.self)
            #expect(listed.items.map(\.id) == [group.id])
        }
    }

    @Test("products: list with state, type and text filters, and keyset pages that never repeat or skip")
    func productList() async throws {
        let fixture = try await APIFixture.forSuite("catalog_api")
        let admin = try await fixture.key(.admin)
        try await fixture.run { api in
            let app = "com.products.list"
            try await api.createApp(app, key: admin)
            for index in 0..<7 {
                try await api.createProduct(app, "item.\(index)", type: index % 2 == 0 ? .consumable : .nonConsumable, key: admin)
            }
            try await api.move(.approve, app, "item.0", key: admin)
            var ids: [String] = []
            var cursor: String?
            repeat {
                let page = try expect(try await api.send(.get, "/v1/apps/\(app)/products?limit=3" + (cursor.map { "&cursor=\($0)" } ?? ""),
                                                         key: admin), .ok, as: Components.Schemas.ProductPage.self)
                ids += page.items.map(\.productId)
                cursor = page.nextCursor
            } while cursor != nil
            #expect(ids == (0..<7).map { "item.\($0)" })
            let approved = try expect(try await api.send(.get, "/v1/apps/\(app)/products?state=APPROVED_BY_DEVELOPER", key: admin),
                                      .ok, as: Components.Schemas.ProductPage.self)
            #expect(approved.items.map(\.productId) == ["item.0"])
            let nonConsumables = try expect(try await api.send(.get, "/v1/apps/\(app)/products?type=NON_CONSUMABLE", key: admin),
                                            .ok, as: Components.Schemas.ProductPage.self)
            #expect(nonConsumables.items.map(\.productId) == ["item.1", "item.3", "item.5"])
            let text = try expect(try await api.send(.get, "/v1/apps/\(app)/products?q=REF%20ITEM.4", key: admin), .ok,
                                  as: Components.Schemas.ProductPage.self)
            #expect(text.items.map(\.productId) == ["item.4"])
        }
    }

    @Test("product identifiers: public, sorted, only what is on sale, 404 for no app, 304 on a matching ETag")
    func identifiers() async throws {
        let fixture = try await APIFixture.forSuite("catalog_api")
        let admin = try await fixture.key(.admin)
        try await fixture.run { api in
            let app = "com.identifiers.app"
            try await api.createApp(app, key: admin)
            for id in ["b.second", "a.first", "c.never"] {
                try await api.createProduct(app, id, type: .consumable, key: admin)
            }
            for id in ["b.second", "a.first"] {
                for action in [ReviewAction.approve, .submit, .startReview, .accept] { try await api.move(action, app, id, key: admin) }
            }
            let response = try await api.send(.get, "/v1/apps/\(app)/product-identifiers")
            #expect(String(buffer: response.body) == #"{"bundleId":"com.identifiers.app","productIdentifiers":["a.first","b.second"]}"#)
            let eTag = try #require(response.headers[.eTag])
            #expect(response.headers[.cacheControl] != nil)
            let again = try await api.send(.get, "/v1/apps/\(app)/product-identifiers", headers: [.ifNoneMatch: eTag])
            #expect(again.status == .notModified && again.body.readableBytes == 0)
            let missing = try await api.send(.get, "/v1/apps/com.identifiers.none/product-identifiers")
            #expect(missing.status == .notFound && String(buffer: missing.body) == #"{"error":"app not found"}"#)
            try await api.move(.removeFromSale, app, "a.first", key: admin)
            let after = try await api.send(.get, "/v1/apps/\(app)/product-identifiers", headers: [.ifNoneMatch: eTag])
            #expect(after.status == .ok && after.headers[.eTag] != eTag)
            #expect(try await api.identifiers(app) == ["b.second"])
        }
    }

    @Test("the generated handler answers the identifier route as the fast path does, If-None-Match included")
    func identifiersGeneratedAlike() async throws {
        let fixture = try await APIFixture.forSuite("catalog_api")
        let admin = try await fixture.key(.admin)
        try await fixture.run { api in
            let app = "com.identifiers.alike"
            try await api.createApp(app, key: admin)
            try await api.createProduct(app, "coins", type: .consumable, key: admin)
            for action in [ReviewAction.approve, .submit, .startReview, .accept] { try await api.move(action, app, "coins", key: admin) }
            let eTag = try #require(try await api.send(.get, "/v1/apps/\(app)/product-identifiers").headers[.eTag])
            // A percent-encoded path is left by the fast path to the router, whose generated handler answers it.
            let paths = (fast: "/v1/apps/\(app)/product-identifiers", generated: "/v1/apps/com%2Eidentifiers%2Ealike/product-identifiers")
            let conditions: [String?] = [nil, eTag, "W/\(eTag)", "\"other\", W/\(eTag)", " \(eTag) ", "*", "\"other\"", "W/\"other\""]
            for query in ["", "?type=CONSUMABLE", "?type=NON_CONSUMABLE"] {
                for condition in conditions {
                    let headers: HTTPFields = condition.map { [.ifNoneMatch: $0] } ?? [:]
                    let fast = try await api.send(.get, paths.fast + query, headers: headers)
                    let generated = try await api.send(.get, paths.generated + query, headers: headers)
                    let label = "\(query) If-None-Match: \(condition ?? "none")"
                    #expect(generated.status == fast.status, "\(label)")
                    #expect(generated.headers[.eTag] == fast.headers[.eTag], "\(label)")
                    #expect(generated.headers[.cacheControl] == fast.headers[.cacheControl], "\(label)")
                    #expect(generated.body == fast.body, "\(label)")
                }
            }
            let missing = (fast: try await api.send(.get, "/v1/apps/com.identifiers.gone/product-identifiers"),
                           generated: try await api.send(.get, "/v1/apps/com%2Eidentifiers.gone/product-identifiers"))
            #expect(missing.generated.status == .notFound && missing.generated.body == missing.fast.body)
        }
    }

    @Test("every response carries a request id, the caller's when it gives a sane one")
    func requestIDs() async throws {
        let fixture = try await APIFixture.forSuite("catalog_api")
        try await fixture.run { api in
            let header = HTTPField.Name("X-Request-Id")!
            #expect(try await api.send(.get, "/v1/health/live", headers: [header: "trace-123"]).headers[header] == "trace-123")
            let replaced = try await api.send(.get, "/v1/health/live", headers: [header: "bad id\u{7}"])
            #expect(replaced.headers[header] != nil && replaced.headers[header] != "bad id\u{7}")
            let failed = try await api.send(.get, "/v1/apps")
            #expect(try problem(failed, .unauthorized, "unauthorized").requestId == failed.headers[header])
        }
    }
}
