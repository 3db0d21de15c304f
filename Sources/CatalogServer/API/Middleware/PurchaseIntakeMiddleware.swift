import CatalogAPI
import Hummingbird
import NIOCore

/// The purchase intake's fast path: `POST /v1/apps/{bundleId}/purchases` in the form every client sends is
/// answered here, by the generated handler's own ``CatalogAPIHandler/intake(bundleID:body:)``, without the generated
/// layer around it. That layer's request and answer (its body streams, `JSONDecoder` and `JSONEncoder` over the
/// generated types) cost a signed transaction about a fifth of the server's time (docs/performance.md, "The
/// intake without the generated layer").
///
/// It runs after every other middleware, so keys, limits, idempotency and problems are what they are for any
/// operation, and it answers what the generated handler answers: the same status, `Content-Type`, `Location` and
/// JSON (``PurchaseSubmissionJSON``). Anything unusual goes to the generated handler unchanged: a bundle id with a
/// percent-encoding, a `Content-Type` other than `application/json`, an `Accept` other than none, `*/*` or
/// `application/json`, or a body not in the plain form ``PurchaseSubmissionBody`` reads. Errors are thrown as the
/// handler throws them, for ``ProblemMiddleware``.
struct PurchaseIntakeMiddleware<Context: RequestContext>: RouterMiddleware {
    let handler: CatalogAPIHandler

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        guard PurchaseRoute(request) == .purchase, let bundleID = Self.bundleID(request.uri.path),
              ContentTypeHeader.isOne(of: ["application/json"], request.headers[.contentType]),
              Self.acceptsJSON(request.headers[.accept])
        else { return try await next(request, context) }
        var request = request
        let bytes = try await request.body.collect(upTo: PurchaseRoute.purchase.bodyLimit)
        guard let body = PurchaseSubmissionBody(plain: bytes) else {
            request.body = RequestBody(buffer: bytes)
            return try await next(request, context)
        }
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        let status: HTTPResponse.Status
        let submission: Components.Schemas.PurchaseSubmission
        switch try await handler.intake(bundleID: bundleID, body: body) {
        case .final(let answered):
            status = .ok
            submission = answered
        case .queued(let answered, let location):
            status = .accepted
            submission = answered
            headers[.location] = location
        }
        return Response(status: status, headers: headers,
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: PurchaseSubmissionJSON.utf8(submission))))
    }

    /// The bundle id of the route's path, unless it is percent-encoded (the generated layer decodes it).
    private static func bundleID(_ path: String) -> String? {
        let segment = path.dropFirst("/v1/apps/".count).prefix { $0 != "/" }
        return segment.utf8.contains(UInt8(ascii: "%")) ? nil : String(segment)
    }

    /// Whether an `Accept` is one the generated layer takes for JSON without having to weigh it.
    private static func acceptsJSON(_ accept: String?) -> Bool {
        guard let accept else { return true }
        return accept == "*/*" || accept == "application/json"
    }
}
