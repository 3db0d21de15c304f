import CatalogAPI
import CatalogCore
import Foundation
import HTTPTypes
import NIOCore
import HummingbirdTesting
import Testing

/// `Idempotency-Key` on POST: retries get the first answer, another body with the same key is refused.
@Suite("Idempotency over HTTP")
struct IdempotencyAPITests {
    static let header = HTTPField.Name("Idempotency-Key")!

    @Test("a retried creation answers the first answer again and creates nothing more")
    func retriedCreation() async throws {
        let fixture = try await APIFixture.forSuite("idempotency_api")
        let keys = try await fixture.keys()
        try await fixture.run { api in
            let app = "com.idem.create"
            try await api.createApp(app, key: keys.admin)
            let body: [String: any Sendable] = ["productId": "p", "referenceName": "P", "type": "CONSUMABLE"]
            let headers: HTTPFields = [Self.header: "create-p-1"]
            let first = try await api.send(.post, "/v1/apps/\(app)/products", key: keys.developer, json: body, headers: headers)
            let retry = try await api.send(.post, "/v1/apps/\(app)/products", key: keys.developer, json: body, headers: headers)
            #expect(first.status == .created && retry.status == .created)
            #expect(first.body == retry.body)
            #expect(retry.headers[.eTag] == "\"1\"")
            #expect(try await api.history(app, "p", key: keys.auditor).count == 1)
            // Without the key, the same request is a new one, refused as a duplicate.
            _ = try problem(try await api.send(.post, "/v1/apps/\(app)/products", key: keys.developer, json: body),
                            .conflict, "conflict")
        }
    }

    @Test("a retried action is applied once; its refusal is replayed too")
    func retriedAction() async throws {
        let fixture = try await APIFixture.forSuite("idempotency_api")
        let keys = try await fixture.keys()
        try await fixture.run { api in
            let app = "com.idem.action"
            try await api.createApp(app, key: keys.admin)
            try await api.createProduct(app, "p", type: .consumable, key: keys.developer)
            let once: HTTPFields = [Self.header: "approve-once"]
            for _ in 0..<3 {
                #expect(try await api.act(.approve, app, "p", key: keys.developer, headers: once).status == .ok)
            }
            #expect(try await api.product(app, "p", key: keys.developer).version == 2)
            let refusal: HTTPFields = [Self.header: "accept-refused"]
            let first = try await api.act(.accept, app, "p", key: keys.reviewer, headers: refusal)
            let again = try await api.act(.accept, app, "p", key: keys.reviewer, headers: refusal)
            #expect(first.status == .conflict && again.status == .conflict && first.body == again.body)
        }
    }

    @Test("the same key with another body is 422 and changes nothing")
    func reusedWithAnotherBody() async throws {
        let fixture = try await APIFixture.forSuite("idempotency_api")
        let keys = try await fixture.keys()
        try await fixture.run { api in
            let app = "com.idem.mismatch"
            try await api.createApp(app, key: keys.admin)
            let headers: HTTPFields = [Self.header: "k"]
            _ = try await api.send(.post, "/v1/apps/\(app)/products", key: keys.developer,
                                   json: ["productId": "a", "referenceName": "A", "type": "CONSUMABLE"], headers: headers)
            _ = try problem(try await api.send(.post, "/v1/apps/\(app)/products", key: keys.developer,
                                               json: ["productId": "b", "referenceName": "B", "type": "CONSUMABLE"],
                                               headers: headers), .unprocessableContent, "idempotency-key-reused")
            _ = try problem(try await api.send(.get, "/v1/apps/\(app)/products/b", key: keys.developer), .notFound, "not-found")
        }
    }

    @Test("keys are per API key: another key's identical request is its own")
    func perAPIKey() async throws {
        let fixture = try await APIFixture.forSuite("idempotency_api")
        let keys = try await fixture.keys()
        let other = try await fixture.key(.developer)
        try await fixture.run { api in
            let app = "com.idem.perkey"
            try await api.createApp(app, key: keys.admin)
            let headers: HTTPFields = [Self.header: "shared"]
            let body: [String: any Sendable] = ["productId": "p", "referenceName": "P", "type": "CONSUMABLE"]
            #expect(try await api.send(.post, "/v1/apps/\(app)/products", key: keys.developer, json: body,
                                       headers: headers).status == .created)
            _ = try problem(try await api.send(.post, "/v1/apps/\(app)/products", key: other, json: body, headers: headers),
                            .conflict, "conflict")
        }
    }

    @Test("concurrent retries of one request: it is applied once")
    func concurrentRetries() async throws {
        let fixture = try await APIFixture.forSuite("idempotency_api")
        let keys = try await fixture.keys()
        try await fixture.run { api in
            let app = "com.idem.concurrent"
            try await api.createApp(app, key: keys.admin)
            try await api.createProduct(app, "p", type: .consumable, key: keys.developer)
            let headers: HTTPFields = [Self.header: "approve-racing"]
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for _ in 0..<10 { group.addTask { try await api.act(.approve, app, "p", key: keys.developer, headers: headers).status } }
                return try await group.reduce(into: [HTTPResponse.Status]()) { $0.append($1) }
            }
            #expect(statuses.allSatisfy { $0 == .ok || $0 == .conflict }, "\(statuses)")
            #expect(statuses.contains(.ok))
            #expect(try await api.history(app, "p", key: keys.auditor).filter { $0.kind == .action }.count == 1)
        }
    }
}
