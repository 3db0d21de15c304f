import Hummingbird
import Logging

/// Turns every error a request can end in into problem details, so that no client ever sees a stack trace,
/// SQL text or a bare 500; errors that are ours to fix are logged with the request id.
struct ProblemMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        do {
            return try await next(request, context)
        } catch {
            let problem = Problem(error: error)
            if problem.isServerFault {
                context.logger.error("request failed", metadata: [
                    "error": "\(String(reflecting: error))", "path": "\(request.uri.path)",
                    "requestId": "\(RequestScope.requestID ?? "")",
                ])
            }
            return problem.response(requestID: RequestScope.requestID)
        }
    }
}
