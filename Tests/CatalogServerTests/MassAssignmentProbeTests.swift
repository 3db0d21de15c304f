import CatalogAPI
import CatalogCore
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// OWASP API3 (mass assignment): members a client may not set (`state`, `version`, `id`, tokens, timestamps,
/// role and scope fields) are refused in every create, edit and action body (422, rule `unknown`), so never
/// applied. (Edits of a product are covered in HostileInputAPITests.)
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
            try expectUnknownMember(response)
            _ = try problem(try await api.send(.get, "/v1/apps/\(Self.app)/products/mass.create", key: keys.admin),
                            .notFound, "not-found")
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
            try expectUnknownMember(try await api.send(.post, "/v1/apps/\(Self.app)/products/mass.action/actions",
                                                       key: keys.developer, json: [
                "action": "approve", "state": "READY_FOR_SALE", "toState": "READY_FOR_SALE", "version": 99,
                "actor": ["name": "someone else", "role": "admin"], "role": "admin",
            ]))
            let product = try await api.product(Self.app, "mass.action", key: keys.developer)
            #expect(product.state == .pendingDeveloperApproval && product.version == 1)
            let events = try await api.history(Self.app, "mass.action", key: keys.auditor)
            #expect(events.count == 1 && events.allSatisfy { $0.actor.name != "someone else" })
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
            try expectUnknownMember(response)
            _ = try problem(try await api.send(.get, "/v1/me", key: chosenToken), .unauthorized, "unauthorized")
            let listed = String(buffer: try await api.send(.get, "/v1/keys", key: keys.admin).body)
            #expect(!listed.contains(chosenID))
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
            try expectUnknownMember(app)
            _ = try problem(try await api.send(.get, "/v1/apps/com.mass.moved", key: keys.admin), .notFound, "not-found")
            let read = try expect(try await api.send(.get, "/v1/apps/\(Self.app)", key: keys.admin), .ok,
                                  as: Components.Schemas.App.self)
            #expect(read.createdAt > Date().addingTimeInterval(-600))
            let edited = try await api.send(.patch, "/v1/apps/\(Self.app)/subscription-groups/\(group.id)", key: keys.developer,
                                            json: ["referenceName": "Mass group 2", "id": otherID, "createdAt": Self.past])
            try expectUnknownMember(edited)
            _ = try problem(try await api.send(.get, "/v1/apps/\(Self.app)/subscription-groups/\(otherID)", key: keys.admin),
                            .notFound, "not-found")
            let kept = try expect(try await api.send(.get, "/v1/apps/\(Self.app)/subscription-groups/\(group.id)",
                                                     key: keys.admin), .ok, as: Components.Schemas.SubscriptionGroup.self)
            #expect(kept.createdAt > Date().addingTimeInterval(-600))
        }
    }

    private func expectUnknownMember(_ response: TestResponse, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let errors = try problem(response, .unprocessableContent, "validation-failed").errors ?? []
        #expect(!errors.isEmpty && errors.allSatisfy { $0.rule == "unknown" }, "\(errors)", sourceLocation: sourceLocation)
    }

    private func ensureApp(_ api: API, _ keys: APIFixture.Keys) async throws {
        try expectUnknownMember(try await api.send(.post, "/v1/apps", key: keys.admin, json: [
            "bundleId": Self.app, "name": "Mass", "createdAt": Self.past, "updatedAt": Self.past]))
        let response = try await api.send(.post, "/v1/apps", key: keys.admin, json: ["bundleId": Self.app, "name": "Mass"])
        #expect(response.status == .created || response.status == .conflict)
        let app = try expect(try await api.send(.get, "/v1/apps/\(Self.app)", key: keys.admin), .ok,
                             as: Components.Schemas.App.self)
        #expect(app.createdAt > Date().addingTimeInterval(-600))
    }
}
