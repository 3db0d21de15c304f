import Foundation
import HTTPTypes
import OpenAPIRuntime
import Synchronization

/// Keeps the body of each answer exactly as the server sent it, so that `--json` prints the API's own bytes
/// rather than a re-encoding of the decoded values (which could reorder keys or drop unknown fields).
final class ResponseRecorder: ClientMiddleware {
    /// One answer as received.
    struct Answer: Sendable {
        let operationID: String
        let status: Int
        let contentType: String?
        let body: Data
    }

    /// Whether a body of `contentType` is one JSON document (an answer or problem details), to be kept.
    static func isJSONDocument(_ contentType: String?) -> Bool {
        guard let type = contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        else { return false }
        return type == "application/json" || type == "application/problem+json"
    }

    /// The largest body kept; the API's pages are far smaller.
    static let maximumBody = 64 * 1024 * 1024

    /// Only the latest answer is kept: commands print each answer before they make the next call.
    private let latest = Mutex<Answer?>(nil)

    /// The most recent answer.
    var last: Answer? { latest.withLock { $0 } }

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let (response, responseBody) = try await next(request, body, baseURL)
        let contentType = response.headerFields[.contentType]
        // Exports (CSV, NDJSON) stream through untouched: they can be far larger than memory should hold.
        guard let responseBody, Self.isJSONDocument(contentType) else {
            latest.withLock { $0 = Answer(operationID: operationID, status: response.status.code, contentType: contentType, body: Data()) }
            return (response, responseBody)
        }
        let data = try await Data(collecting: responseBody, upTo: Self.maximumBody)
        latest.withLock { $0 = Answer(operationID: operationID, status: response.status.code, contentType: contentType, body: data) }
        return (response, HTTPBody(data))
    }
}

/// Sends the API key as `Authorization: Bearer`, except to the public routes: client apps call those without
/// a key, and so does the CLI, so that what it shows is exactly what they see.
struct BearerAuthentication: ClientMiddleware {
    let key: String?

    static let publicOperations: Set<String> = ["getLiveness", "getReadiness", "getProductIdentifiers"]

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        if let key, !Self.publicOperations.contains(operationID) {
            request.headerFields[.authorization] = "Bearer \(key)"
        }
        request.headerFields[.userAgent] = "iap-admin"
        return try await next(request, body, baseURL)
    }
}
