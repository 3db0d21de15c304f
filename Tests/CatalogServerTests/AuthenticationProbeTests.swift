import CatalogAPI
import CatalogCore
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// OWASP API2 (broken authentication), over every operation of the served document that needs a key: a
/// revoked key, an expired key, an unknown key and every malformed `Authorization` header are 401 with
/// `WWW-Authenticate: Bearer`, before anything else is looked at.
@Suite("Authentication probes over every operation")
struct AuthenticationProbeTests {
    @Test("revoked, expired, unknown and malformed keys: 401 on every route that needs a key")
    func everyRoute() async throws {
        let fixture = try await APIFixture.forSuite("authentication_probes")
        try await fixture.run { api in
            let world = try await ProbeWorld.make(api, fixture: fixture, app: "com.probe.auth")
            let revoked = try expect(try await api.send(.post, "/v1/keys", key: world.keys.admin,
                                                        json: ["role": "admin", "name": "revoked"]),
                                     .created, as: Components.Schemas.CreatedKey.self)
            #expect(try await api.send(.delete, "/v1/keys/\(revoked.id)", key: world.keys.admin).status == .noContent)
            let expired = try expect(try await api.send(.post, "/v1/keys", key: world.keys.admin, json: [
                "role": "admin", "name": "expired", "expiresAt": Date().addingTimeInterval(-1).formatted(.iso8601)]),
                                     .created, as: Components.Schemas.CreatedKey.self)
            let headers = [
                "Bearer \(revoked.token)", "Bearer \(expired.token)", "Bearer iapk_" + String(repeating: "A", count: 43),
                "Bearer \(world.keys.admin)x", "Bearer", "Bearer ", "Basic \(world.keys.admin)", world.keys.admin,
                "Bearer \(world.keys.admin) \(world.keys.admin)", "Bearer " + String(repeating: "x", count: 10_000),
                "Bearer iapk_\u{00e9}",
            ]
            let operations = try await api.servedOperations().filter(\.needsKey)
            #expect(operations.count >= 20)
            for operation in operations {
                for header in headers {
                    let values = try await world.values(api)
                    let response = try await ProbeRequests.send(api, operation, values: values,
                                                                headers: [.authorization: header])
                    #expect(throws: Never.self, "\(operation) with \(header.prefix(40))") {
                        try problem(response, .unauthorized, "unauthorized")
                    }
                    #expect(response.headers[.wwwAuthenticate] == "Bearer")
                }
                // No key at all, with a well-formed request: 401 too.
                let response = try await ProbeRequests.send(api, operation, values: try await world.values(api), headers: [:])
                #expect(throws: Never.self, "\(operation) without a key") { try problem(response, .unauthorized, "unauthorized") }
            }
            // The document's public operations (`security: []`) answer without a key: the middleware's list
            // of public routes and the document agree.
            let open = try await api.servedOperations().filter { !$0.needsKey }
            #expect(open.count >= 3)
            for operation in open {
                let response = try await ProbeRequests.send(api, operation, values: try await world.values(api), headers: [:])
                if operation.operationID == "receiveAppStoreNotification" {
                    // Heard without a key; the probe's body is not signed data, so it is refused as such (its own
                    // tests send signed notifications).
                    #expect(throws: Never.self, "\(operation)") {
                        try problem(response, .unprocessableContent, "invalid-proof")
                    }
                } else {
                    #expect(response.status == .ok, "\(operation) without a key: \(response.status)")
                }
            }
            // The keys that were refused are still refused afterwards, and nothing was created by them.
            _ = try problem(try await api.send(.get, "/v1/me", key: revoked.token), .unauthorized, "unauthorized")
            let apps = try expect(try await api.send(.get, "/v1/apps?limit=200", key: world.keys.admin), .ok,
                                  as: Components.Schemas.AppPage.self)
            #expect(apps.items.map(\.bundleId) == [world.app])
        }
    }

    @Test("without a key: 401 before the body or the query is judged; the public routes answer anyway")
    func noKeyBeforeValidation() async throws {
        let fixture = try await APIFixture.forSuite("authentication_probes")
        try await fixture.run { api in
            let refused: [(HTTPRequest.Method, String, String?)] = [
                (.post, "/v1/apps", #"{"bundleId": "com.nokey", "name": "x", "unknown": 1}"#),
                (.post, "/v1/apps", #"{"bundleId": "com.nokey", "name": null}"#),
                (.patch, "/v1/apps/com.nokey", "not json"),
                (.post, "/v1/apps/com.nokey/products/p/actions", #"{"action": "fly"}"#),
                (.get, "/v1/apps?limit=100000", nil),
                (.get, "/v1/history?since=yesterday", nil),
                (.get, "/v1/nowhere", nil),
            ]
            for (method, path, body) in refused {
                let response = try await api.send(method, path, body: body)
                #expect(throws: Never.self, "\(method) \(path)") { try problem(response, .unauthorized, "unauthorized") }
            }
            for path in ["/v1/health/live", "/openapi.yaml", "/metrics"] {
                #expect(try await api.send(.get, path).status == .ok, "\(path)")
            }
            #expect(try await api.send(.get, "/v1/health/ready").status != .unauthorized)
            #expect(try await api.send(.get, "/v1/apps/com.nokey/product-identifiers").status == .notFound)
            // Unusual requests for the public route are judged without a key, as the plain ones: not a 401.
            let unknownType = try await api.send(.get, "/v1/apps/com.nokey/product-identifiers?type=GOLD")
            #expect(try problem(unknownType, .unprocessableContent, "validation-failed").errors?.first?.field == "type")
            #expect(try await api.send(.get, "/v1/apps/com%2Enokey/product-identifiers").status == .notFound)
        }
    }
}
