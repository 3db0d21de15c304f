import CatalogAPI
import CatalogCore
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// OWASP API1 (object-level) and API5 (function-level authorization), over every operation of the served
/// document: a role may call exactly what DESIGN.md's "Roles" gives it (403 otherwise), and a key limited
/// to some apps finds nothing of the others (404, as if it did not exist).
@Suite("Authorization probes over every operation")
struct AuthorizationProbeTests {
    /// Who may call what, from DESIGN.md "Roles" (admin: everything; developer: products, groups, developer
    /// actions, reads, StoreKit imports and exports; reviewer: review actions, reads; auditor: reads, history
    /// verification, StoreKit exports; client: its purchases, the public routes and who it is). Written out by
    /// hand, not derived from the server's code, and checked against the document in both directions.
    static let allowed: [String: Set<KeyRole>] = {
        let anyKey = Set(KeyRole.allCases)
        let everyone: Set<KeyRole> = [.admin, .developer, .reviewer, .auditor]
        return [
            "getLiveness": anyKey, "getReadiness": anyKey, "getProductIdentifiers": anyKey,
            "createApp": [.admin], "listApps": everyone, "getApp": everyone, "updateApp": [.admin],
            "createSubscriptionGroup": [.admin, .developer], "listSubscriptionGroups": everyone,
            "getSubscriptionGroup": everyone, "updateSubscriptionGroup": [.admin, .developer],
            "createProduct": [.admin, .developer], "listProducts": everyone, "getProduct": everyone,
            "updateProduct": [.admin, .developer], "deleteProduct": [.admin, .developer],
            // performAction depends on the action: see `actionRoles`.
            "performAction": [.admin, .developer, .reviewer],
            "getProductHistory": everyone, "listHistory": everyone, "verifyHistory": [.admin, .auditor],
            "listEvents": everyone, "createWebhook": [.admin], "listWebhooks": [.admin], "getWebhook": [.admin],
            "deleteWebhook": [.admin], "listWebhookDeliveries": [.admin], "redeliverWebhook": [.admin],
            "getCurrentKey": anyKey, "createKey": [.admin], "listKeys": [.admin], "revokeKey": [.admin],
            "importStoreKit": [.admin, .developer], "exportStoreKit": [.admin, .developer, .auditor],
            "submitPurchase": [.admin, .client], "listSubmissions": [.admin, .developer, .auditor, .client],
            "getSubmission": [.admin, .developer, .auditor, .client], "retrySubmission": [.admin, .developer],
            "listTransactions": [.admin, .developer, .auditor], "getTransaction": [.admin, .developer, .auditor],
            "getTransactionSummary": [.admin, .developer, .auditor],
            "getStoreSettings": [.admin], "putStoreSettings": [.admin], "receiveAppStoreNotification": anyKey,
            "createAccountTokens": [.admin, .developer], "getAccount": [.admin, .developer],
            "listSignals": [.admin, .developer, .auditor],
            "getCatalogFile": everyone, "planCatalogFile": [.admin, .developer], "applyCatalogFile": [.admin, .developer],
            "getCatalogFileSchema": anyKey,
        ]
    }()

    /// performAction, per action: developer actions for admin and developer, review actions for admin and
    /// reviewer (DESIGN.md's transition table).
    static let actionRoles: [ReviewAction: Set<KeyRole>] = [
        .approve: [.admin, .developer], .submit: [.admin, .developer], .withdraw: [.admin, .developer],
        .resubmit: [.admin, .developer], .cancelChange: [.admin, .developer], .submitChange: [.admin, .developer],
        .removeFromSale: [.admin, .developer], .restoreToSale: [.admin, .developer],
        .startReview: [.admin, .reviewer], .accept: [.admin, .reviewer], .requestChanges: [.admin, .reviewer],
        .reject: [.admin, .reviewer],
    ]

    @Test("every role × every operation: 403 exactly where the role table says no")
    func functionLevel() async throws {
        let fixture = try await APIFixture.forSuite("authorization_probes")
        try await fixture.run { api in
            let world = try await ProbeWorld.make(api, fixture: fixture, app: "com.probe.roles")
            let operations = try await api.servedOperations()
            // The table and the document name the same operations: a new operation needs a row here.
            #expect(Set(operations.map(\.operationID)) == Set(Self.allowed.keys))
            #expect(Set(Self.actionRoles.keys) == Set(ReviewAction.allCases))
            var checked = 0
            for operation in operations {
                let allowed = try #require(Self.allowed[operation.operationID], "\(operation) has no row in the role table")
                let actions: [ReviewAction?] = operation.operationID == "performAction" ? ReviewAction.allCases : [nil]
                for action in actions {
                    for role in KeyRole.allCases {
                        let may = action.map { Self.actionRoles[$0]!.contains(role) } ?? allowed.contains(role)
                        let response = try await ProbeRequests.send(
                            api, operation, values: try await world.values(api),
                            headers: [.authorization: "Bearer \(world.key(role))"], action: action ?? .approve)
                        let what = "\(role.rawValue) → \(operation)\(action.map { " \($0.rawValue)" } ?? "")"
                        if may {
                            #expect(![401, 403].contains(response.status.code) && response.status.code < 500,
                                    "\(what): \(response.status) \(String(buffer: response.body))")
                        } else {
                            #expect(throws: Never.self, "\(what)") { try problem(response, .forbidden, "forbidden") }
                        }
                        checked += 1
                    }
                }
            }
            #expect(checked >= operations.count * KeyRole.allCases.count)
        }
    }

    @Test("a key limited to other apps: every operation on this app's objects by id is 404 and changes nothing")
    func objectLevel() async throws {
        let fixture = try await APIFixture.forSuite("authorization_probes")
        try await fixture.run { api in
            let theirs = try await ProbeWorld.make(api, fixture: fixture, app: "com.probe.theirs")
            try await api.createApp("com.probe.mine", key: theirs.keys.admin)
            // An admin key, so that no answer can be a 403 for the role: only the app limit stands in the way.
            let limited = try await fixture.key(.admin, apps: ["com.probe.mine"])
            let values = try await theirs.values(api)
            let productID = try #require(values["productId"])
            let before = try await api.product(theirs.app, productID, key: theirs.keys.admin)
            var probed: [String] = []
            for operation in try await api.servedOperations() where operation.needsKey && operation.template.contains("{bundleId}") {
                let response = try await ProbeRequests.send(api, operation, values: values,
                                                            headers: [.authorization: "Bearer \(limited)"])
                #expect(throws: Never.self, "\(operation)") { try problem(response, .notFound, "not-found") }
                probed.append(operation.operationID)
            }
            #expect(probed.count >= 12, "\(probed)")
            // By id in the query, and keys limited to their app.
            for path in ["/v1/history?app=\(theirs.app)", "/v1/history/verify?app=\(theirs.app)",
                         "/v1/apps/\(theirs.app)/products/\(productID)?asOf=2100-01-01T00:00:00Z"] {
                _ = try problem(try await api.send(.get, path, key: limited), .notFound, "not-found")
            }
            _ = try problem(try await api.send(.delete, "/v1/keys/\(theirs.spareKeyID)", key: limited), .notFound, "not-found")
            let keys = try expect(try await api.send(.get, "/v1/keys", key: limited), .ok, as: Components.Schemas.KeyList.self)
            #expect(!keys.items.contains { $0.id == theirs.spareKeyID })
            let history = try expect(try await api.send(.get, "/v1/history?limit=200", key: limited), .ok,
                                     as: Components.Schemas.HistoryPage.self)
            #expect(!history.items.contains { $0.app == theirs.app })
            // Nothing of theirs changed: not the product, not the app, not the key.
            let after = try await api.product(theirs.app, productID, key: theirs.keys.admin)
            #expect(after.version == before.version && after.referenceName == before.referenceName)
            let app = try expect(try await api.send(.get, "/v1/apps/\(theirs.app)", key: theirs.keys.admin), .ok,
                                 as: Components.Schemas.App.self)
            #expect(app.name == "App \(theirs.app)")
            let spare = try expect(try await api.send(.get, "/v1/keys", key: theirs.keys.admin), .ok,
                                   as: Components.Schemas.KeyList.self).items.first { $0.id == theirs.spareKeyID }
            #expect(spare != nil && spare?.revokedAt == nil)
        }
    }
}
