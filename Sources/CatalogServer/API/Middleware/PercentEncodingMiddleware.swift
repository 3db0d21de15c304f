import Hummingbird

/// Refuses, with 400, a URL whose percent-encoded path or query does not decode to UTF-8 (`%FF`, a stray
/// `%`). The generated layer would otherwise read such a parameter as an empty string: a filter that could
/// not be read would silently match everything, and a path parameter would name something else.
struct PercentEncodingMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        guard Self.decodesToUTF8(request.uri.path), request.uri.query.map(Self.decodesToUTF8) ?? true else {
            throw Problem("bad-request", .badRequest, "The URL could not be read",
                          detail: "percent-encoded bytes in the path or query must be UTF-8")
        }
        return try await next(request, context)
    }

    /// Whether every `%XX` in `text` is well-formed and the bytes they spell, with the rest, are UTF-8.
    static func decodesToUTF8(_ text: String) -> Bool {
        PercentDecoding.decoded(text) != nil
    }
}
