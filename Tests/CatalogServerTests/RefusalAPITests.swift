import CatalogAPI
import CatalogCore
import Foundation
import HTTPTypes
import NIOCore
import HummingbirdTesting
import Testing

/// Every way a request is refused, each with its status and problem kind, and each changing nothing.
@Suite("Refusals over HTTP")
struct RefusalAPITests {
    static let app = "com.refusals.app"

    @Test("an action not allowed from the current state is 409 with the actions that are")
    func wrongState() async throws {
        let fixture = try await APIFixture.forSuite("refusal_api")
        let keys = try await fixture.keys()
        try await fixture.run { api in
            let app = "com.refusals.state"
            try await api.createApp(app, key: keys.admin)
            try await api.createProduct(app, "p", type: .consumable, key: keys.developer)
            let refused = try problem(try await api.act(.submit, app, "p", key: keys.developer), .conflict,
                                      "invalid-transition")
            #expect(refused.state == .pendingDeveloperApproval)
            #expect(refused.allowedActions == [.approve])
            try await api.move(.approve, app, "p", key: keys.developer)
            let review = try problem(try await api.act(.accept, app, "p", key: keys.reviewer), .conflict, "invalid-transition")
            #expect(review.allowedActions == [])
            #expect(try await api.product(app, "p", key: keys.developer).version == 2)
        }
    }

    @Test("a role that may never take an action is 403, whatever the state")
    func wrongRole() async throws {
        let fixture = try await APIFixture.forSuite("refusal_api")
        let keys = try await fixture.keys()
        try await fixture.run { api in
            let app = "com.refusals.role"
            try await api.createApp(app, key: keys.admin)
            try await api.createProduct(app, "p", type: .consumable, key: keys.developer)
            _ = try problem(try await api.act(.approve, app, "p", key: keys.reviewer), .forbidden, "forbidden")
            _ = try problem(try await api.act(.approve, app, "p", key: keys.auditor), .forbidden, "forbidden")
            try await api.move(.approve, app, "p", key: keys.developer)
            try await api.move(.submit, app, "p", key: keys.developer)
            _ = try problem(try await api.act(.startReview, app, "p", key: keys.developer), .forbidden, "forbidden")
            // Writes other than actions: a reviewer and an auditor edit nothing, create nothing.
            for key in [keys.reviewer, keys.auditor] {
                _ = try problem(try await api.send(.patch, "/v1/apps/\(app)/products/p", key: key,
                                                   json: ["referenceName": "x"]), .forbidden, "forbidden")
                _ = try problem(try await api.send(.post, "/v1/apps/\(app)/products", key: key, json: [
                    "productId": "q", "referenceName": "Q", "type": "CONSUMABLE"]), .forbidden, "forbidden")
                _ = try problem(try await api.send(.post, "/v1/apps", key: key, json: ["bundleId": "x.y", "name": "X"]),
                                .forbidden, "forbidden")
                _ = try problem(try await api.send(.get, "/v1/keys", key: key), .forbidden, "forbidden")
            }
            _ = try problem(try await api.send(.post, "/v1/apps", key: keys.developer,
                                               json: ["bundleId": "x.y", "name": "X"]), .forbidden, "forbidden")
            #expect(try await api.product(app, "p", key: keys.auditor).state == .waitingForReview)
        }
    }

    @Test("a key limited to other apps sees nothing of this one: 404, never 403")
    func outOfScope() async throws {
        let fixture = try await APIFixture.forSuite("refusal_api")
        let keys = try await fixture.keys()
        let scoped = try await fixture.key(.admin, apps: ["com.refusals.mine"])
        try await fixture.run { api in
            try await api.createApp("com.refusals.mine", key: keys.admin)
            try await api.createApp("com.refusals.theirs", key: keys.admin)
            try await api.createProduct("com.refusals.theirs", "secret", type: .consumable, key: keys.admin)
            for (method, path) in [(HTTPRequest.Method.get, "/v1/apps/com.refusals.theirs"),
                                   (.get, "/v1/apps/com.refusals.theirs/products"),
                                   (.get, "/v1/apps/com.refusals.theirs/products/secret"),
                                   (.get, "/v1/apps/com.refusals.theirs/products/secret/history"),
                                   (.get, "/v1/apps/com.refusals.theirs/subscription-groups"),
                                   (.delete, "/v1/apps/com.refusals.theirs/products/secret")] {
                _ = try problem(try await api.send(method, path, key: scoped), .notFound, "not-found")
            }
            _ = try problem(try await api.act(.approve, "com.refusals.theirs", "secret", key: scoped), .notFound, "not-found")
            _ = try problem(try await api.send(.patch, "/v1/apps/com.refusals.theirs", key: scoped,
                                               json: ["name": "mine now"]), .notFound, "not-found")
            let listed = try expect(try await api.send(.get, "/v1/apps", key: scoped), .ok, as: Components.Schemas.AppPage.self)
            #expect(listed.items.map(\.bundleId) == ["com.refusals.mine"])
            // A limited admin may neither create apps nor hand out keys beyond its apps.
            _ = try problem(try await api.send(.post, "/v1/apps", key: scoped, json: ["bundleId": "x.z", "name": "Z"]),
                            .forbidden, "forbidden")
            _ = try problem(try await api.send(.post, "/v1/keys", key: scoped, json: ["role": "admin", "name": "escalate"]),
                            .forbidden, "forbidden")
            _ = try problem(try await api.send(.post, "/v1/keys", key: scoped, json: [
                "role": "developer", "name": "other", "apps": ["com.refusals.theirs"]]), .forbidden, "forbidden")
        }
    }

    @Test("a stale If-Match is 412 for edits, actions and deletes; a current one passes")
    func staleIfMatch() async throws {
        let fixture = try await APIFixture.forSuite("refusal_api")
        let keys = try await fixture.keys()
        try await fixture.run { api in
            let app = "com.refusals.etag"
            try await api.createApp(app, key: keys.admin)
            let created = try await api.send(.post, "/v1/apps/\(app)/products", key: keys.developer, json: [
                "productId": "p", "referenceName": "P", "type": "NON_CONSUMABLE"])
            #expect(created.headers[.eTag] == "\"1\"")
            let stale: HTTPFields = [.ifMatch: "\"7\""]
            _ = try problem(try await api.send(.patch, "/v1/apps/\(app)/products/p", key: keys.developer,
                                               json: ["referenceName": "Q"], headers: stale), .preconditionFailed,
                            "precondition-failed")
            _ = try problem(try await api.act(.approve, app, "p", key: keys.developer, headers: stale),
                            .preconditionFailed, "precondition-failed")
            _ = try problem(try await api.send(.delete, "/v1/apps/\(app)/products/p", key: keys.developer, headers: stale),
                            .preconditionFailed, "precondition-failed")
            let edited = try await api.send(.patch, "/v1/apps/\(app)/products/p", key: keys.developer,
                                            json: ["referenceName": "Q"], headers: [.ifMatch: "\"1\""])
            #expect(edited.status == .ok && edited.headers[.eTag] == "\"2\"")
        }
    }

    @Test("approve of an incomplete product is 422 naming every missing item, and changes nothing")
    func incomplete() async throws {
        let fixture = try await APIFixture.forSuite("refusal_api")
        let keys = try await fixture.keys()
        try await fixture.run { api in
            let app = "com.refusals.incomplete"
            try await api.createApp(app, key: keys.admin)
            let created = try expect(try await api.send(.post, "/v1/apps/\(app)/products", key: keys.developer, json: [
                "productId": "sub", "referenceName": "Sub", "type": "AUTO_RENEWABLE_SUBSCRIPTION"]), .created,
                                     as: Components.Schemas.Product.self)
            #expect(created.missingForApproval.map(\.field) == ["localizations", "price", "subscriptionGroupId", "level",
                                                                "duration"])
            let refused = try problem(try await api.act(.approve, app, "sub", key: keys.developer), .unprocessableContent,
                                      "product-incomplete")
            #expect(refused.missing?.map(\.field) == created.missingForApproval.map(\.field))
            #expect(try await api.product(app, "sub", key: keys.developer).state == .pendingDeveloperApproval)
        }
    }

    @Test("a productId is never reused: not while it exists, not after deletion, not after rejection")
    func productIDNeverReused() async throws {
        let fixture = try await APIFixture.forSuite("refusal_api")
        let keys = try await fixture.keys()
        try await fixture.run { api in
            let app = "com.refusals.reuse"
            try await api.createApp(app, key: keys.admin)
            try await api.createProduct(app, "kept", type: .consumable, key: keys.developer)
            let body: [String: any Sendable] = ["productId": "kept", "referenceName": "Other", "type": "CONSUMABLE"]
            _ = try problem(try await api.send(.post, "/v1/apps/\(app)/products", key: keys.developer, json: body),
                            .conflict, "conflict")
            let deleted = try await api.send(.delete, "/v1/apps/\(app)/products/kept", key: keys.developer)
            #expect(deleted.status == .noContent)
            _ = try problem(try await api.send(.get, "/v1/apps/\(app)/products/kept", key: keys.developer), .notFound,
                            "not-found")
            let reused = try problem(try await api.send(.post, "/v1/apps/\(app)/products", key: keys.developer, json: body),
                                     .conflict, "conflict")
            #expect(reused.detail?.contains("reserved") == true)
            // The deleted product's history stays readable.
            #expect(try await api.history(app, "kept", key: keys.auditor).map(\.kind) == [.created, .deleted])

            try await api.createProduct(app, "doomed", type: .consumable, key: keys.developer)
            for action in [ReviewAction.approve, .submit] { try await api.move(action, app, "doomed", key: keys.developer) }
            try await api.move(.startReview, app, "doomed", key: keys.reviewer)
            try await api.move(.reject, app, "doomed", key: keys.reviewer, reason: "misleading name")
            _ = try problem(try await api.send(.delete, "/v1/apps/\(app)/products/doomed", key: keys.developer),
                            .conflict, "conflict")
            _ = try problem(try await api.send(.post, "/v1/apps/\(app)/products", key: keys.developer, json: [
                "productId": "doomed", "referenceName": "Again", "type": "CONSUMABLE"]), .conflict, "conflict")
        }
    }

    @Test("a free subscription only in a Newsstand app, at most one per app; newsstand stays on while it exists")
    func freeSubscription() async throws {
        let fixture = try await APIFixture.forSuite("refusal_api")
        let keys = try await fixture.keys()
        try await fixture.run { api in
            try await api.createApp("com.refusals.plain", key: keys.admin)
            try await api.createApp("com.refusals.news", key: keys.admin, newsstand: true)
            let body: [String: any Sendable] = ["productId": "free", "referenceName": "Free", "type": "FREE_SUBSCRIPTION"]
            let plain = try problem(try await api.send(.post, "/v1/apps/com.refusals.plain/products", key: keys.developer,
                                                       json: body), .unprocessableContent, "validation-failed")
            #expect(plain.errors?.map(\.rule) == ["newsstandOnly"])
            #expect(try await api.send(.post, "/v1/apps/com.refusals.news/products", key: keys.developer, json: body)
                        .status == .created)
            let second = try await api.send(.post, "/v1/apps/com.refusals.news/products", key: keys.developer, json: [
                "productId": "free2", "referenceName": "Free 2", "type": "FREE_SUBSCRIPTION"])
            _ = try problem(second, .conflict, "conflict")
            _ = try problem(try await api.send(.patch, "/v1/apps/com.refusals.news", key: keys.admin,
                                               json: ["newsstand": false]), .conflict, "conflict")
        }
    }

    @Test("reviewed fields cannot be edited while waiting or in review; nothing of a rejected product can")
    func editsRefusedByState() async throws {
        let fixture = try await APIFixture.forSuite("refusal_api")
        let keys = try await fixture.keys()
        try await fixture.run { api in
            let app = "com.refusals.edits"
            try await api.createApp(app, key: keys.admin)
            try await api.createProduct(app, "p", type: .nonConsumable, key: keys.developer)
            for action in [ReviewAction.approve, .submit] { try await api.move(action, app, "p", key: keys.developer) }
            let refused = try problem(try await api.send(.patch, "/v1/apps/\(app)/products/p", key: keys.developer,
                                                         json: ["reviewNote": "late"]), .conflict, "conflict")
            #expect(refused.state == .waitingForReview)
            // Unreviewed fields still change, at once.
            let renamed = try expect(try await api.send(.patch, "/v1/apps/\(app)/products/p", key: keys.developer,
                                                        json: ["referenceName": "Renamed", "price": ["currency": "EUR", "amount": "1.09"]]),
                                     .ok, as: Components.Schemas.Product.self)
            #expect(renamed.referenceName == "Renamed" && renamed.price?.amount == "1.09" && renamed.state == .waitingForReview)
        }
    }

    @Test("no key, a malformed key, an unknown key: 401 on every route that needs one")
    func unauthenticated() async throws {
        let fixture = try await APIFixture.forSuite("refusal_api")
        try await fixture.run { api in
            for header in [nil, "Bearer", "Basic abc", "Bearer iapk_unknown", "Bearer " + String(repeating: "x", count: 500)] {
                var headers = HTTPFields()
                if let header { headers[.authorization] = header }
                for path in ["/v1/apps", "/v1/keys", "/v1/me", "/v1/apps/com.x/products"] {
                    let response = try await api.send(.get, path, headers: headers)
                    _ = try problem(response, .unauthorized, "unauthorized")
                    #expect(response.headers[.wwwAuthenticate] == "Bearer")
                }
            }
        }
    }
}
