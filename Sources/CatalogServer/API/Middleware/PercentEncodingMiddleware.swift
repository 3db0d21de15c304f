import Hummingbird

/// Refuses, with 400, a URL whose percent-encoded path or query does not decode to UTF-8 (`%FF`, a stray
/// `%`). The generated layer would otherwise read such a parameter as an empty string: a filter that could
/// not be read would silently match everything, and a path parameter would name something else.
struct PercentEncodingMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        guard PercentDecoding.decoded(request.uri.path) != nil,
              request.uri.query.map({ PercentDecoding.decoded($0) != nil }) ?? true
        else {
            throw Problem("bad-request", .badRequest, "The URL could not be read",
                          detail: "percent-encoded bytes in the path or query must be UTF-8")
        }
        return try await next(request, context)
    }
}
