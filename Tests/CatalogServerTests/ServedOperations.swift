import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
import Yams

/// The operations of the OpenAPI document the server serves at `/openapi.yaml`, read from the document
/// itself, so that the probes over "every route" cover every route there is, including ones added later.
struct ServedOperation: Sendable, CustomStringConvertible {
    let operationID: String
    let method: HTTPRequest.Method
    /// The path as the document writes it, with `{parameters}`.
    let template: String
    /// Whether the operation needs a key (the document's global `bearer`, unless the operation says `[]`).
    let needsKey: Bool
    /// The media type of its request body (the first the document lists), or `nil` if it takes none.
    let bodyMediaType: String?
    var hasBody: Bool { bodyMediaType != nil }
    /// The names of its query parameters.
    let queryParameters: Set<String>

    var description: String { "\(operationID) (\(method.rawValue) \(template))" }

    /// The path with each parameter replaced by `values[name]`.
    func path(_ values: [String: String]) -> String {
        var path = template
        for (name, value) in values { path = path.replacingOccurrences(of: "{\(name)}", with: value) }
        return path
    }

    /// Every operation of `yaml`.
    static func all(in yaml: String) throws -> [ServedOperation] {
        let document = try #require(try Yams.load(yaml: yaml) as? [String: Any])
        let globalSecurity = (document["security"] as? [Any])?.isEmpty == false
        let components = document["components"] as? [String: Any] ?? [:]
        let sharedParameters = components["parameters"] as? [String: Any] ?? [:]
        func resolve(_ parameter: Any) -> [String: Any] {
            let object = parameter as? [String: Any] ?? [:]
            guard let reference = object["$ref"] as? String else { return object }
            return sharedParameters[String(reference.split(separator: "/").last ?? "")] as? [String: Any] ?? [:]
        }
        let paths = try #require(document["paths"] as? [String: Any])
        var operations: [ServedOperation] = []
        for (template, item) in paths {
            let item = item as? [String: Any] ?? [:]
            let pathParameters = (item["parameters"] as? [Any] ?? []).map(resolve)
            for (method, operation) in item {
                guard let method = HTTPRequest.Method(method.uppercased()),
                      ["GET", "POST", "PUT", "PATCH", "DELETE"].contains(method.rawValue),
                      let operation = operation as? [String: Any]
                else { continue }
                let parameters = pathParameters + (operation["parameters"] as? [Any] ?? []).map(resolve)
                let security = operation["security"] as? [Any]
                let content = (operation["requestBody"] as? [String: Any])?["content"] as? [String: Any]
                operations.append(ServedOperation(
                    operationID: try #require(operation["operationId"] as? String), method: method, template: template,
                    needsKey: security.map { !$0.isEmpty } ?? globalSecurity, bodyMediaType: content?.keys.sorted().first,
                    queryParameters: Set(parameters.filter { $0["in"] as? String == "query" }.compactMap { $0["name"] as? String })))
            }
        }
        return operations.sorted { $0.operationID < $1.operationID }
    }
}

extension API {
    /// The operations of the document this server serves.
    func servedOperations() async throws -> [ServedOperation] {
        let response = try await send(.get, "/openapi.yaml")
        #expect(response.status == .ok)
        return try ServedOperation.all(in: String(buffer: response.body))
    }
}
