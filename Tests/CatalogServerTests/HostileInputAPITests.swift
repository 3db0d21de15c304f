import CatalogAPI
import CatalogCore
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Whatever a client sends: a clear 4xx problem that changes nothing, or a faithful store of odd but valid
/// text. Never a 500, a stack trace or SQL text.
@Suite("Hostile input over HTTP")
struct HostileInputAPITests {
    static let app = "com.hostile.app"

    static let badBodies: [(String, String)] = [
        ("not JSON", "{bad"),
        ("empty", ""),
        ("an array", "[]"),
        ("a string", "\"product\""),
        ("null", "null"),
        ("missing fields", "{}"),
        ("wrong type", #"{"productId": 42, "referenceName": "x", "type": "CONSUMABLE"}"#),
        ("unknown enum", #"{"productId": "p", "referenceName": "x", "type": "SUBSCRIPTION"}"#),
        ("null field", #"{"productId": null, "referenceName": "x", "type": "CONSUMABLE"}"#),
        ("nested wrong type", #"{"productId": "p", "referenceName": "x", "type": "CONSUMABLE", "price": {"currency": "USD", "amount": 0.99}}"#),
        ("float price", #"{"productId": "p", "referenceName": "x", "type": "CONSUMABLE", "price": {"currency": "USD", "amount": "1e3"}}"#),
        ("huge number", #"{"productId": "p", "referenceName": "x", "type": "AUTO_RENEWABLE_SUBSCRIPTION", "level": 99999999999999999999999}"#),
        ("negative level", #"{"productId": "p", "referenceName": "x", "type": "AUTO_RENEWABLE_SUBSCRIPTION", "level": -1}"#),
        ("NUL in a string", #"{"productId": "p", "referenceName": "a\u0000b", "type": "CONSUMABLE"}"#),
        ("NUL in the id", #"{"productId": "p\u0000", "referenceName": "x", "type": "CONSUMABLE"}"#),
        ("long string", #"{"productId": "p", "referenceName": ""# + String(repeating: "x", count: 100_000) + #"", "type": "CONSUMABLE"}"#),
        ("deep JSON", #"{"productId": "p", "referenceName": "x", "type": "CONSUMABLE", "extra": "# +
            String(repeating: "[", count: 5_000) + String(repeating: "]", count: 5_000) + "}"),
        ("SQL in the id", #"{"productId": "p'; DROP TABLE products; --", "referenceName": "x", "type": "CONSUMABLE"}"#),
        ("bad group id", #"{"productId": "p", "referenceName": "x", "type": "AUTO_RENEWABLE_SUBSCRIPTION", "subscriptionGroupId": "' OR 1=1 --"}"#),
        ("mass assignment only", #"{"state": "READY_FOR_SALE", "version": 99}"#),
    ]

    @Test("bad bodies are 4xx problems and create nothing", arguments: badBodies.map(\.0))
    func badBody(name: String) async throws {
        let body = Self.badBodies.first { $0.0 == name }!.1
        let fixture = try await APIFixture.forSuite("hostile_api")
        let keys = try await fixture.keys()
        try await fixture.run { api in
            try await ensureApp(api, keys)
            let response = try await api.send(.post, "/v1/apps/\(Self.app)/products", key: keys.admin, body: body)
            #expect((400..<500).contains(response.status.code), "\(name): \(response.status) \(String(buffer: response.body))")
            #expect(response.headers[.contentType] == "application/problem+json")
            let text = String(buffer: response.body)
            #expect(!text.contains("SELECT") && !text.contains("INSERT") && !text.contains("PSQLError"))
            let listed = try expect(try await api.send(.get, "/v1/apps/\(Self.app)/products?limit=200", key: keys.admin),
                                    .ok, as: Components.Schemas.ProductPage.self)
            #expect(listed.items.allSatisfy { $0.productId.hasPrefix("kept") })
        }
    }

    @Test("invalid UTF-8 in a body is a 400")
    func invalidUTF8() async throws {
        let fixture = try await APIFixture.forSuite("hostile_api")
        let keys = try await fixture.keys()
        try await fixture.run { api in
            try await ensureApp(api, keys)
            var buffer = ByteBuffer(string: #"{"productId": "p", "referenceName": ""#)
            buffer.writeBytes([0xC3, 0x28, 0xFF, 0xFE])
            buffer.writeString(#"", "type": "CONSUMABLE"}"#)
            let response = try await api.client.execute(
                uri: "/v1/apps/\(Self.app)/products", method: .post,
                headers: [.authorization: "Bearer \(keys.admin)", .contentType: "application/json"], body: buffer)
            #expect(response.status == .badRequest || response.status == .unprocessableContent)
        }
    }

    @Test("a body over 1 MiB is 413, before anything is read into the catalog")
    func oversizedBody() async throws {
        let fixture = try await APIFixture.forSuite("hostile_api")
        let keys = try await fixture.keys()
        try await fixture.run { api in
            try await ensureApp(api, keys)
            let note = String(repeating: "x", count: (1 << 20) + 1)
            let response = try await api.send(.post, "/v1/apps/\(Self.app)/products", key: keys.admin,
                                              body: #"{"productId": "big", "referenceName": "x", "type": "CONSUMABLE", "reviewNote": ""# + note + "\"}")
            _ = try problem(response, .contentTooLarge, "payload-too-large")
            _ = try problem(try await api.send(.get, "/v1/apps/\(Self.app)/products/big", key: keys.admin), .notFound, "not-found")
        }
    }

    @Test("SQL-looking and non-ASCII text is stored and answered exactly as sent")
    func oddButValidText() async throws {
        let fixture = try await APIFixture.forSuite("hostile_api")
        let keys = try await fixture.keys()
        try await fixture.run { api in
            try await ensureApp(api, keys)
            let names = ["Robert'); DROP TABLE products;--", "専業版1年 🎉", "مرحبا بالعالم", "\\\"quoted\\\" %s %n"]
            for (index, name) in names.enumerated() {
                let created = try expect(try await api.send(.post, "/v1/apps/\(Self.app)/products", key: keys.admin, json: [
                    "productId": "kept.text.\(index)", "referenceName": name, "type": "NON_CONSUMABLE",
                    "localizations": [["locale": "ja", "displayName": "金貨 \(index)", "description": String(name.prefix(45))]],
                    "reviewNote": name,
                ]), .created, as: Components.Schemas.Product.self)
                #expect(created.referenceName == name && created.reviewNote == name)
                let read = try await api.product(Self.app, "kept.text.\(index)", key: keys.auditor)
                #expect(read.referenceName == name && read.localizations.first?.displayName == "金貨 \(index)")
            }
            let found = try expect(try await api.send(.get, "/v1/apps/\(Self.app)/products?q=DROP%20TABLE", key: keys.admin),
                                   .ok, as: Components.Schemas.ProductPage.self)
            #expect(found.items.map(\.productId) == ["kept.text.0"])
        }
    }

    @Test("mass assignment of state, version, type or productId in an edit changes none of them")
    func massAssignment() async throws {
        let fixture = try await APIFixture.forSuite("hostile_api")
        let keys = try await fixture.keys()
        try await fixture.run { api in
            try await ensureApp(api, keys)
            try await api.createProduct(Self.app, "kept.mass", type: .consumable, key: keys.admin)
            let response = try await api.send(.patch, "/v1/apps/\(Self.app)/products/kept.mass", key: keys.admin, json: [
                "state": "READY_FOR_SALE", "version": 99, "type": "NON_CONSUMABLE", "productId": "other", "onSale": true,
                "live": ["reviewNote": "sneaky"],
            ])
            // Refused as fields an edit does not have (the first named); nothing changed.
            #expect(try problem(response, .unprocessableContent, "validation-failed").errors?.first?.rule == "unknown")
            let product = try await api.product(Self.app, "kept.mass", key: keys.admin)
            #expect(product.state == .pendingDeveloperApproval && product.version == 1 && product._type == .consumable)
            #expect(!product.onSale && product.live == nil)
        }
    }

    @Test("a query value outside its enum is refused naming the parameter, not read as a body")
    func enumQueryValues() async throws {
        let fixture = try await APIFixture.forSuite("hostile_api")
        let keys = try await fixture.keys()
        try await fixture.run { api in
            try await ensureApp(api, keys)
            for (path, field) in [("/v1/apps/\(Self.app)/products?state=FOO", "state"),
                                  ("/v1/apps/\(Self.app)/products?limit=5&type=GOLD%20BARS", "type")] {
                let response = try await api.send(.get, path, key: keys.admin)
                let error = try problem(response, .unprocessableContent, "validation-failed").errors?.first
                #expect(error?.field == field && error?.rule == "value", "\(path)")
            }
        }
    }

    @Test("bad query parameters, paths and methods are 4xx problems", arguments: [
        "/v1/apps/\(app)/products?limit=100000", "/v1/apps/\(app)/products?limit=0", "/v1/apps/\(app)/products?limit=x",
        "/v1/apps/\(app)/products?cursor=%%%%", "/v1/apps/\(app)/products?cursor=bm90IGEgY3Vyc29y&state=FOO",
        "/v1/apps/\(app)/products?state=FOO", "/v1/apps/\(app)/products/%00", "/v1/apps/\(app)/products/a%2Fb/history",
        "/v1/apps/%27%20OR%201%3D1/products", "/v1/nowhere", "/v1/apps/\(app)/subscription-groups/not-a-uuid",
        "/v1/keys/not-a-uuid",
    ])
    func badRequests(path: String) async throws {
        let fixture = try await APIFixture.forSuite("hostile_api")
        let keys = try await fixture.keys()
        try await fixture.run { api in
            try await ensureApp(api, keys)
            for method in [HTTPRequest.Method.get, .delete] {
                let response = try await api.send(method, path, key: keys.admin)
                #expect((400..<500).contains(response.status.code) || (method == .get && response.status == .ok),
                        "\(method) \(path): \(response.status)")
                if response.status.code >= 400 {
                    #expect(response.headers[.contentType] == "application/problem+json")
                }
            }
        }
    }

    @Test("null is refused wherever it is, naming the member, and changes nothing")
    func nullMembers() async throws {
        let fixture = try await APIFixture.forSuite("hostile_api")
        let keys = try await fixture.keys()
        try await fixture.run { api in
            try await ensureApp(api, keys)
            let edit = try await api.send(.patch, "/v1/apps/\(Self.app)", key: keys.admin,
                                          body: #"{"name": "Renamed", "primaryLocale": null}"#)
            #expect(try problem(edit, .unprocessableContent, "validation-failed").errors?.first?.field == "primaryLocale")
            let nested = try await api.send(.post, "/v1/apps/\(Self.app)/products", key: keys.admin, body: #"""
                {"productId": "kept.null.nested", "referenceName": "x", "type": "CONSUMABLE",
                 "localizations": [{"locale": "en-US", "displayName": "Name", "description": null}]}
                """#)
            #expect(try problem(nested, .unprocessableContent, "validation-failed").errors?.first?.field
                        == "localizations[0].description")
            // Text that merely spells null is text.
            let spelled = try await api.send(.post, "/v1/apps/\(Self.app)/products", key: keys.admin,
                                             body: #"{"productId": "kept.null.spelled", "referenceName": "null \"null\"", "type": "CONSUMABLE"}"#)
            #expect(spelled.status == .created)
            let app = try expect(try await api.send(.get, "/v1/apps/\(Self.app)", key: keys.admin), .ok,
                                 as: Components.Schemas.App.self)
            #expect(app.name == "Hostile")
            #expect(try await api.send(.get, "/v1/apps/\(Self.app)/products/kept.null.nested", key: keys.admin).status == .notFound)
        }
    }

    @Test("a member a request body does not have is refused, naming it, and changes nothing")
    func unknownMembers() async throws {
        let fixture = try await APIFixture.forSuite("hostile_api")
        let keys = try await fixture.keys()
        try await fixture.run { api in
            try await ensureApp(api, keys)
            let misspelt = try await api.send(.patch, "/v1/apps/\(Self.app)", key: keys.admin,
                                              body: #"{"name": "Renamed", "primaryLocal": "de-DE"}"#)
            let error = try problem(misspelt, .unprocessableContent, "validation-failed").errors?.first
            #expect(error?.field == "primaryLocal" && error?.rule == "unknown", "\(String(describing: error))")
            let created = try await api.send(.post, "/v1/apps/\(Self.app)/products", key: keys.admin, body: #"""
                {"productId": "kept.unknown", "referenceName": "x", "type": "CONSUMABLE", "prize": "0.99"}
                """#)
            #expect(try problem(created, .unprocessableContent, "validation-failed").errors?.first?.field == "prize")
            let action = try await api.send(.post, "/v1/apps/\(Self.app)/products/any.id/actions", key: keys.admin,
                                            body: #"{"action": "approve", "reason": "r", "force": true}"#)
            #expect(try problem(action, .unprocessableContent, "validation-failed").errors?.first?.field == "force")
            let app = try expect(try await api.send(.get, "/v1/apps/\(Self.app)", key: keys.admin), .ok,
                                 as: Components.Schemas.App.self)
            #expect(app.name == "Hostile")
            #expect(try await api.send(.get, "/v1/apps/\(Self.app)/products/kept.unknown", key: keys.admin).status == .notFound)
        }
    }

    @Test("a method a path does not take is 405 with Allow; a path that does not exist stays 404")
    func methodNotAllowed() async throws {
        let fixture = try await APIFixture.forSuite("hostile_api")
        let keys = try await fixture.keys()
        try await fixture.run { api in
            try await ensureApp(api, keys)
            let trace = try await api.send(.init("TRACE")!, "/v1/keys", key: keys.admin)
            _ = try problem(trace, .methodNotAllowed, "method-not-allowed")
            #expect(trace.headers[.allow] == "GET, HEAD, POST")
            let put = try await api.send(.put, "/v1/apps/\(Self.app)/products/any.id", key: keys.admin)
            _ = try problem(put, .methodNotAllowed, "method-not-allowed")
            #expect(put.headers[.allow] == "DELETE, GET, HEAD, PATCH")
            _ = try problem(try await api.send(.put, "/v1/nowhere", key: keys.admin), .notFound, "not-found")
        }
    }

    @Test("a body in another media type is refused as such")
    func wrongMediaType() async throws {
        let fixture = try await APIFixture.forSuite("hostile_api")
        let keys = try await fixture.keys()
        try await fixture.run { api in
            try await ensureApp(api, keys)
            let response = try await api.send(.post, "/v1/apps/\(Self.app)/products", key: keys.admin,
                                              body: "productId=p", headers: [.contentType: "application/x-www-form-urlencoded"])
            #expect(response.status == .unsupportedMediaType || response.status == .badRequest)
        }
    }

    private func ensureApp(_ api: API, _ keys: APIFixture.Keys) async throws {
        let response = try await api.send(.post, "/v1/apps", key: keys.admin, json: ["bundleId": Self.app, "name": "Hostile"])
        #expect(response.status == .created || response.status == .conflict)
    }
}
