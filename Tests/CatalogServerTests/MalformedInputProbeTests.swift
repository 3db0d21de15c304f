import CatalogAPI
import CatalogCore
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// OWASP API4 and API8 (resource consumption, injection), over every operation of the served document:
/// page sizes beyond the maximum, deeply nested JSON, very long strings, NUL characters and invalid UTF-8
/// in bodies, path parameters and query parameters are each a clear 4xx problem, never a 5xx or a hang.
/// (HostileInputAPITests covers product creation body by body; these probes cover every route.)
@Suite("Malformed input probes over every operation")
struct MalformedInputProbeTests {
    /// Hostile text for parameters, already percent-encoded as it goes into a URL.
    static let hostileParameters: [(String, String)] = [
        ("NUL", "a%00b"), ("invalid UTF-8", "a%C3%28%FF%FEb"), ("long", String(repeating: "x", count: 5_000)),
    ]

    @Test("page sizes: the maximum is served, one beyond it and absurd values are 422 on every paged route")
    func pageSizes() async throws {
        let fixture = try await APIFixture.forSuite("malformed_probes")
        try await fixture.run { api in
            let world = try await ProbeWorld.make(api, fixture: fixture, app: "com.probe.limits")
            let paged = try await api.servedOperations().filter { $0.queryParameters.contains("limit") }
            #expect(paged.count >= 4, "\(paged)")
            for operation in paged {
                let path = operation.path(try await world.values(api))
                let key = world.keys.admin
                #expect(try await api.send(.get, path + "?limit=200", key: key).status == .ok, "\(operation)")
                for limit in ["201", "1000000", "-1", "0", "99999999999999999999999", "1e3", "%00"] {
                    let response = try await api.send(.get, path + "?limit=\(limit)", key: key)
                    #expect((400..<500).contains(response.status.code) && response.headers[.contentType] == "application/problem+json",
                            "\(operation) limit=\(limit): \(response.status)")
                }
            }
        }
    }

    @Test("bodies: deep nesting, long strings, NUL and invalid UTF-8 are 4xx problems on every route with a body")
    func bodies() async throws {
        let fixture = try await APIFixture.forSuite("malformed_probes")
        try await fixture.run { api in
            let world = try await ProbeWorld.make(api, fixture: fixture, app: "com.probe.bodies")
            let withBodies = try await api.servedOperations().filter(\.hasBody)
            #expect(withBodies.count >= 8)
            for operation in withBodies where operation.bodyMediaType == "application/yaml" {
                // A catalog file: YAML nested beyond any file's need, invalid UTF-8, NUL, an enormous unknown key.
                let valid = try #require(try ProbeRequests.body(for: operation.operationID))
                var invalid = ByteBuffer(string: "version: 1\nproducts:\n  - {productId: \"")
                invalid.writeBytes([0xC3, 0x28, 0xFF, 0xFE])
                invalid.writeString("\", type: CONSUMABLE, referenceName: R}\n")
                let probes: [(String, ByteBuffer)] = [
                    ("deep YAML", ByteBuffer(string: "version: 1\nproducts: " + String(repeating: "[", count: 10_000)
                                             + String(repeating: "]", count: 10_000) + "\n")),
                    ("invalid UTF-8", invalid),
                    ("NUL", ByteBuffer(string: valid.replacingOccurrences(of: "File", with: "Fi\u{0}le"))),
                    ("a long unknown key", ByteBuffer(string: valid + String(repeating: "x", count: 100_000) + ": 1\n")),
                ]
                for (name, body) in probes {
                    let response = try await api.client.execute(
                        uri: operation.path(try await world.values(api)), method: operation.method,
                        headers: [.authorization: "Bearer \(world.keys.admin)", .contentType: "application/yaml"], body: body)
                    #expect((400..<500).contains(response.status.code) && response.headers[.contentType] == "application/problem+json",
                            "\(operation) with \(name): \(response.status) \(String(buffer: response.body).prefix(300))")
                }
            }
            for operation in withBodies where operation.bodyMediaType != "application/yaml" {
                let valid = try #require(try ProbeRequests.body(for: operation.operationID))
                let object = try #require(try JSONSerialization.jsonObject(with: Data(valid.utf8)) as? [String: Any])
                // Every string value, nested ones included (a StoreKit file's are in its products).
                func replacingStrings(_ transform: (String) -> String) throws -> String {
                    func changed(_ value: Any) -> Any {
                        switch value {
                        case let text as String: transform(text)
                        case let object as [String: Any]: object.mapValues(changed)
                        case let array as [Any]: array.map(changed)
                        default: value
                        }
                    }
                    return String(decoding: try JSONSerialization.data(withJSONObject: changed(object)), as: UTF8.self)
                }
                let deep = String(valid.dropLast()) + #","nested":"# + String(repeating: "[", count: 10_000)
                    + String(repeating: "]", count: 10_000) + "}"
                // Invalid UTF-8 in the first string member (one the server reads), and in one it skips. A body
                // without strings (a redelivery's sequence) gets the probes that need none.
                var invalidRead = ByteBuffer()
                if let firstValue = valid.range(of: #"":""#) {
                    invalidRead.writeString(String(valid[..<firstValue.upperBound]))
                    invalidRead.writeBytes([0xC3, 0x28, 0xFF, 0xFE])
                    invalidRead.writeString(String(valid[firstValue.upperBound...]))
                }
                var invalidSkipped = ByteBuffer(string: String(valid.dropLast()) + #","skipped":""#)
                invalidSkipped.writeBytes([0xC3, 0x28, 0xFF, 0xFE])
                invalidSkipped.writeString("\"}")
                let probes: [(String, ByteBuffer)] = [
                    ("deep JSON", ByteBuffer(string: deep)),
                    ("long strings", ByteBuffer(string: try replacingStrings { $0 + String(repeating: "x", count: 100_000) })),
                    ("NUL", ByteBuffer(string: try replacingStrings { "\($0)\u{0}" })),
                    ("invalid UTF-8 in a member read", invalidRead),
                    ("invalid UTF-8 in a member skipped", invalidSkipped),
                ].filter { name, _ in valid.contains(#"":""#) || ["deep JSON", "invalid UTF-8 in a member skipped"].contains(name) }
                for (name, body) in probes {
                    let response = try await api.client.execute(
                        uri: operation.path(try await world.values(api)), method: operation.method,
                        headers: [.authorization: "Bearer \(world.keys.admin)",
                                  .contentType: try #require(operation.bodyMediaType)],
                        body: body)
                    #expect((400..<500).contains(response.status.code) && response.headers[.contentType] == "application/problem+json",
                            "\(operation) with \(name): \(response.status) \(String(buffer: response.body).prefix(300))")
                }
            }
        }
    }

    @Test("path and query parameters: NUL, invalid UTF-8 and very long values are 4xx problems")
    func parameters() async throws {
        let fixture = try await APIFixture.forSuite("malformed_probes")
        try await fixture.run { api in
            let world = try await ProbeWorld.make(api, fixture: fixture, app: "com.probe.parameters")
            var probes = 0
            for operation in try await api.servedOperations() {
                let values = try await world.values(api)
                let key = operation.needsKey ? world.keys.admin : nil
                let body = try ProbeRequests.body(for: operation.operationID)
                let headers: HTTPFields = operation.bodyMediaType.map { [.contentType: $0] } ?? [:]
                let pathParameters = values.keys.filter { operation.template.contains("{\($0)}") }
                for parameter in pathParameters {
                    for (name, hostile) in Self.hostileParameters {
                        var changed = values
                        changed[parameter] = hostile
                        let response = try await api.send(operation.method, operation.path(changed), key: key, body: body,
                                                          headers: headers)
                        expectClientError(response, operation, "with \(name) in {\(parameter)}")
                        probes += 1
                    }
                }
                for parameter in operation.queryParameters {
                    for (name, hostile) in Self.hostileParameters {
                        let path = operation.path(values) + "?\(parameter)=\(hostile)"
                        let response = try await api.send(operation.method, path, key: key, body: body, headers: headers)
                        expectClientError(response, operation, "with \(name) in ?\(parameter)")
                        probes += 1
                    }
                }
            }
            #expect(probes >= 100)
            // The server is still well after all that.
            #expect(try await api.send(.get, "/v1/apps/\(world.app)", key: world.keys.admin).status == .ok)
        }
    }

    /// A 4xx problem; the public identifier list answers an unknown app with the body its document gives it.
    private func expectClientError(_ response: TestResponse, _ operation: ServedOperation, _ what: String) {
        let documented404 = operation.operationID == "getProductIdentifiers" && response.status == .notFound
        #expect((400..<500).contains(response.status.code)
                    && (documented404 || response.headers[.contentType] == "application/problem+json"),
                "\(operation) \(what): \(response.status) \(String(buffer: response.body).prefix(300))")
    }
}
