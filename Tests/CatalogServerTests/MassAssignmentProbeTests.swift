import CatalogAPI
import CatalogCore
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// OWASP API3 (mass assignment): members a client may not set (`state`, `version`, `id`, tokens, timestamps,
/// role and scope fields) are ignored in every create and edit body, or refused; never applied. (Edits of a
/// product are covered in HostileInputAPITests.)
@Suite("Mass assignment probes")
struct MassAssignmentProbeTests {
    static let app = "com.mass.app"
    static let past = "2001-01-01T00:00:00Z"

    @Test("creating a product: state, version, live revision, dates and sale flags in the body are not applied")
    func createProduct() async throws {
        let fixture = try await APIFixture.forSuite("mass_assignment")
        let keys = try await fixture.keys()
        try await fixture.run { api in
            try await ensureApp(api, keys)
            let response = try await api.send(.post, "/v1/apps/\(Self.app)/products", key: keys.developer, json: [
                "productId": "mass.create", "referenceName": "Mass", "type": "CONSUMABLE",
                "state": "READY_FOR_SALE", "version": 42, "onSale": true, "allowedActions": ["accept"],
                "live": ["reviewNote": "sneaked live"], "draft": ["reviewNote": "sneaked draft"],
                "createdAt": Self.past, "updatedAt": Self.past, "missingForApproval": [String](),
                "app": "com.other.app", "bundleId": "com.other.app",
            ])
            guard response.status == .created else {
                _ = try problem(response, .unprocessableContent, "validation-failed")
                return
            }
            let product = try await api.product(Self.app, "mass.create", key: keys.developer)
            #expect(product.state == .pendingDeveloperApproval && product.version == 1 && !product.onSale)
            #expect(product.live == nil && product.reviewNote == nil && product.draft?.reviewNote == nil)
            #expect(product.allowedActions == [.approve] && !product.missingForApproval.isEmpty)
            #expect(product.createdAt > Date().addingTimeInterval(-600))
            #expect(try await api.identifiers(Self.app).isEmpty)
            _ = try problem(try await api.send(.get, "/v1/apps/com.other.app/products/mass.create", key: keys.admin),
                            .notFound, "not-found")
        }
    }

    @Test("an action body cannot name the state to go to, the version or the actor")
    func actionBody() async throws {
        let fixture = try await APIFixture.forSuite("mass_assignment")
        let keys = try await fixture.keys()
        try await fixture.run { api in
            try await ensureApp(api, keys)
            try await api.createProduct(Self.app, "mass.action", type: .consumable, key: keys.developer)
            let moved = try expect(try await api.send(.post, "/v1/apps/\(Self.app)/products/mass.action/actions",
                                                      key: keys.developer, json: [
                "action": "approve", "state": "READY_FOR_SALE", "toState": "READY_FOR_SALE", "version": 99,
                "actor": ["name": "someone else", "role": "admin"], "role": "admin",
            ]), .ok, as: Components.Schemas.Product.self)
            #expect(moved.state == .approvedByDeveloper && moved.version == 2)
            let event = try #require(try await api.history(Self.app, "mass.action", key: keys.auditor).last)
            #expect(event.actor.role == .developer && event.actor.name != "someone else")
            #expect(event.toState == .approvedByDeveloper)
        }
    }

    @Test("creating a key: its id, token, dates and revocation come from the server, never from the body")
    func createKey() async throws {
        let fixture = try await APIFixture.forSuite("mass_assignment")
        let keys = try await fixture.keys()
        try await fixture.run { api in
            let chosenID = UUID().uuidString.lowercased()
            let chosenToken = "iapk_" + String(repeating: "C", count: 43)
            let response = try await api.send(.post, "/v1/keys", key: keys.admin, json: [
                "role": "auditor", "name": "mass", "id": chosenID, "token": chosenToken, "createdAt": Self.past,
                "revokedAt": Self.past, "tokenHash": "00",
            ])
            guard response.status == .created else {
                _ = try problem(response, .unprocessableContent, "validation-failed")
                return
            }
            let created = try expect(response, .created, as: Components.Schemas.CreatedKey.self)
            #expect(created.id != chosenID && created.token != chosenToken && created.createdAt > Date().addingTimeInterval(-600))
            _ = try problem(try await api.send(.get, "/v1/me", key: chosenToken), .unauthorized, "unauthorized")
            let me = try expect(try await api.send(.get, "/v1/me", key: created.token), .ok, as: Components.Schemas.Key.self)
            #expect(me.revokedAt == nil && me.role == .auditor)
        }
    }

    @Test("editing an app or a group cannot rename its id, move it, or touch its dates")
    func appAndGroupEdits() async throws {
        let fixture = try await APIFixture.forSuite("mass_assignment")
        let keys = try await fixture.keys()
        try await fixture.run { api in
            try await ensureApp(api, keys)
            let group = try await api.createGroup(Self.app, key: keys.developer, name: "Mass group")
            let otherID = UUID().uuidString.lowercased()
            let app = try await api.send(.patch, "/v1/apps/\(Self.app)", key: keys.admin, json: [
                "name": "Renamed", "bundleId": "com.mass.moved", "createdAt": Self.past])
            #expect(app.status == .ok || app.status == .unprocessableContent)
            _ = try problem(try await api.send(.get, "/v1/apps/com.mass.moved", key: keys.admin), .notFound, "not-found")
            let read = try expect(try await api.send(.get, "/v1/apps/\(Self.app)", key: keys.admin), .ok,
                                  as: Components.Schemas.App.self)
            #expect(read.createdAt > Date().addingTimeInterval(-600))
            let edited = try await api.send(.patch, "/v1/apps/\(Self.app)/subscription-groups/\(group.id)", key: keys.developer,
                                            json: ["referenceName": "Mass group 2", "id": otherID, "createdAt": Self.past])
            #expect(edited.status == .ok || edited.status == .unprocessableContent)
            _ = try problem(try await api.send(.get, "/v1/apps/\(Self.app)/subscription-groups/\(otherID)", key: keys.admin),
                            .notFound, "not-found")
            let kept = try expect(try await api.send(.get, "/v1/apps/\(Self.app)/subscription-groups/\(group.id)",
                                                     key: keys.admin), .ok, as: Components.Schemas.SubscriptionGroup.self)
            #expect(kept.createdAt > Date().addingTimeInterval(-600))
        }
    }

    private func ensureApp(_ api: API, _ keys: APIFixture.Keys) async throws {
        let response = try await api.send(.post, "/v1/apps", key: keys.admin, json: [
            "bundleId": Self.app, "name": "Mass", "createdAt": Self.past, "updatedAt": Self.past])
        #expect(response.status == .created || response.status == .conflict)
        let app = try expect(try await api.send(.get, "/v1/apps/\(Self.app)", key: keys.admin), .ok,
                             as: Components.Schemas.App.self)
        #expect(app.createdAt > Date().addingTimeInterval(-600))
    }
}
