import CatalogCore
import HTTPTypes
import Hummingbird
import HummingbirdCore
import NIOCore

/// Answers `GET` and `HEAD /v1/apps/{bundleId}/product-identifiers[?type=…]`, the hot path of every client
/// app's launch, from ``IdentifierSnapshots`` before routing: no router, no middleware, no database, no
/// allocation beyond the response. Anything else (and anything unusual about this route: percent-encoded
/// paths, an unknown `type`, other query parameters, snapshots not loaded yet) goes on to `next`, whose
/// generated handler answers the same from the same snapshots, as `openapi.yaml` documents it.
struct IdentifierFastPath<Next: HTTPResponder>: HTTPResponder {
    typealias Context = Next.Context
    let snapshots: IdentifierSnapshots
    let metrics: ServiceMetrics
    let next: Next

    func respond(to request: Request, context: Context) async throws -> Response {
        guard request.method == .get || request.method == .head, snapshots.isLoaded,
              let (bundleID, type) = IdentifierRoute.match(request.uri)
        else { return try await next.respond(to: request, context: context) }
        let clock = ContinuousClock()
        let start = clock.now
        let response = answer(request, bundleID, type)
        metrics.request(route: IdentifierRoute.pattern, method: request.method, status: response.status,
                        duration: clock.now - start)
        return response
    }

    private func answer(_ request: Request, _ bundleID: Substring, _ type: PurchaseType?) -> Response {
        let answer = IdentifierAnswer(snapshots, bundleID: bundleID, type: type,
                                      ifNoneMatch: request.headers[.ifNoneMatch])
        var headers: HTTPFields = [:]
        if let eTag = answer.eTag {
            headers[.eTag] = eTag
            headers[.cacheControl] = IdentifierRoute.cacheControl
        }
        guard let body = answer.body else { return Response(status: answer.httpStatus, headers: headers) }
        headers[.contentType] = "application/json"
        if request.method == .head {
            headers[.contentLength] = String(body.readableBytes)
            return Response(status: answer.httpStatus, headers: headers, body: ResponseBody())
        }
        return Response(status: answer.httpStatus, headers: headers, body: ResponseBody(byteBuffer: body))
    }
}
