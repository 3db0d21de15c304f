import Hummingbird

/// Refuses, with 400, a JSON body that is not UTF-8 (RFC 8259 allows no other encoding). The JSON decoder
/// checks only the strings it reads: invalid bytes in a member it skips would otherwise pass unnoticed.
/// Runs after ``BodyLimitMiddleware``, which has read the whole body into memory.
struct UTF8BodyMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        guard ContentTypeHeader.isJSON(request.headers[.contentType]) else {
            return try await next(request, context)
        }
        var request = request
        let body = try await request.body.collect(upTo: BodyLimit.of(request))
        guard String(validating: body.readableBytesView, as: UTF8.self) != nil else {
            throw Problem("bad-request", .badRequest, "The body is not valid JSON",
                          detail: "a JSON body must be encoded in UTF-8")
        }
        request.body = RequestBody(buffer: body)
        return try await next(request, context)
    }
}
