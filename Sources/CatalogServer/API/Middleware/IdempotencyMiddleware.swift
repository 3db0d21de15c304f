import CatalogCore
import CatalogStore
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Makes a POST with an `Idempotency-Key` safe to retry: the first answer is kept in PostgreSQL (per API key,
/// for 24 hours) and replayed to a retry with the same method, path and body; the same key with another
/// request answers 422, and a retry while the first is still running answers 409.
///
/// Answers of 5xx are not kept: the request did not complete, so a retry runs it again. A crash between the
/// change and the storing of its answer leaves the key "in progress"; the lifecycle itself keeps a rerun
/// harmless (a repeated action is refused, a productId cannot be created twice).
struct IdempotencyMiddleware<Context: RequestContext>: RouterMiddleware {
    static var headerName: HTTPField.Name { HTTPField.Name("Idempotency-Key")! }
    let store: IdempotencyRepository

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        // An account-token request changes nothing, and its body is an account, which is never kept in any form
        // (a plain hash of it could be found from a list of user names).
        guard request.method == .post, let idempotencyKey = request.headers[Self.headerName],
              let key = RequestScope.key, PurchaseRoute(request) != .accountTokens
        else { return try await next(request, context) }
        guard (1...255).contains(idempotencyKey.count) else {
            throw Problem.validation([.init(field: "Idempotency-Key", rule: "maxLength", message: "1–255 characters")])
        }
        let body = try await request.body.collect(upTo: BodyLimit.of(request))
        var hasher = SHA256()
        hasher.update(data: Data("\(request.method.rawValue) \(request.uri.path)\n".utf8))
        hasher.update(data: Data(body.readableBytesView))
        let requestHash = Array(hasher.finalize())

        switch try await store.claim(keyID: key.id, idempotencyKey: idempotencyKey, requestHash: requestHash) {
        case .replay(let stored):
            return Self.response(from: stored)
        case .mismatch:
            throw Problem("idempotency-key-reused", .unprocessableContent,
                          "The Idempotency-Key was used with another request",
                          detail: "use a new key for a new request")
        case .inProgress:
            var problem = Problem("idempotency-key-in-use", .conflict, "A request with this Idempotency-Key is in progress",
                                  detail: "retry once it has been answered")
            problem.headers[.retryAfter] = "1"
            throw problem
        case .claimed:
            let response: Response
            do {
                var request = request
                request.body = RequestBody(buffer: body)
                response = try await next(request, context)
            } catch {
                let problem = Problem(error: error)
                guard problem.status.code < 500 else {
                    try? await store.release(keyID: key.id, idempotencyKey: idempotencyKey)
                    throw error
                }
                return try await remember(problem.response(requestID: RequestScope.requestID), key.id, idempotencyKey)
            }
            guard response.status.code < 500 else {
                try? await store.release(keyID: key.id, idempotencyKey: idempotencyKey)
                return response
            }
            return try await remember(response, key.id, idempotencyKey)
        }
    }

    /// Stores the answer for replay and hands back an equal response (the original body can be read once).
    private func remember(_ response: Response, _ keyID: UUID, _ idempotencyKey: String) async throws -> Response {
        let collector = BodyCollector()
        try await response.body.write(CollectingWriter(collector: collector))
        var headers: [String: String] = [:]
        for field in response.headers where field.name != .contentLength {
            headers[field.name.rawName] = field.value
        }
        let stored = IdempotencyRepository.StoredResponse(
            status: Int(response.status.code), headers: headers, body: Array(collector.buffer.readableBytesView))
        try await store.complete(keyID: keyID, idempotencyKey: idempotencyKey, response: stored)
        return Self.response(from: stored)
    }

    private static func response(from stored: IdempotencyRepository.StoredResponse) -> Response {
        var fields = HTTPFields()
        for (name, value) in stored.headers.sorted(by: { $0.key < $1.key }) {
            if let name = HTTPField.Name(name) { fields[name] = value }
        }
        return Response(status: HTTPResponse.Status(code: stored.status), headers: fields,
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: stored.body)))
    }
}

/// Gathers a response body's bytes (API answers are small JSON documents).
private final class BodyCollector {
    var buffer = ByteBuffer()
}

private struct CollectingWriter: ResponseBodyWriter {
    let collector: BodyCollector

    mutating func write(_ buffer: ByteBuffer) async throws {
        var buffer = buffer
        collector.buffer.writeBuffer(&buffer)
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
