import HTTPTypes
import Hummingbird

/// Answers 405 with `Allow` for a method that a documented path does not take; the router alone would answer
/// 404, as if the path did not exist. Only requests the router found no route for pay for the lookup.
struct MethodNotAllowedMiddleware<Context: RequestContext>: RouterMiddleware {
    let routes: DocumentedRoutes

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            guard var allowed = routes.methods(for: request.uri.path), !allowed.contains(request.method) else { throw error }
            if allowed.contains(.get) { allowed.insert(.head) }
            var problem = Problem("method-not-allowed", .methodNotAllowed, "The method is not allowed here",
                                  detail: "\(request.uri.path) takes \(Self.list(allowed))")
            problem.headers[.allow] = Self.list(allowed)
            throw problem
        }
    }

    private static func list(_ methods: Set<HTTPRequest.Method>) -> String {
        methods.map(\.rawValue).sorted().joined(separator: ", ")
    }
}
