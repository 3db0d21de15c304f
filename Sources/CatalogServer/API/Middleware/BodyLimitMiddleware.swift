import Hummingbird
import NIOCore

/// Reads at most ``limit(for:)`` bytes of a request body, answering 413 beyond: the whole body is read before
/// any handler runs, so that an oversized request changes nothing and never reaches the database.
struct BodyLimitMiddleware<Context: RequestContext>: RouterMiddleware {
    /// 1 MiB: far above any catalog request (a full product is a few KiB).
    static var limit: Int { 1 << 20 }

    /// The limit of `request`'s route: a StoreKit import takes a whole file, every other route ``limit``.
    static func limit(for request: Request) -> Int {
        StoreKitFileMiddleware<Context>.Route(request) == .importFile ? StoreKitFileMiddleware<Context>.fileLimit : limit
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let limit = Self.limit(for: request)
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit {
            throw Problem.payloadTooLarge(limit: limit)
        }
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: limit)
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            throw Problem.payloadTooLarge(limit: limit)
        }
        request.body = RequestBody(buffer: body)
        return try await next(request, context)
    }
}
