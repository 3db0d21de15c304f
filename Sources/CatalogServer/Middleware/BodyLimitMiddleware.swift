import Hummingbird

/// Reads at most ``limit`` bytes of a request body, answering 413 beyond: the whole body is read before any
/// handler runs, so that an oversized request changes nothing and never reaches the database.
struct BodyLimitMiddleware<Context: RequestContext>: RouterMiddleware {
    /// 1 MiB: far above any catalog request (a full product is a few KiB).
    static var limit: Int { 1 << 20 }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > Self.limit {
            throw Problem(status: .contentTooLarge)
        }
        var request = request
        let body = try await request.body.collect(upTo: Self.limit)
        request.body = RequestBody(buffer: body)
        return try await next(request, context)
    }
}
