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
            return Problem.reporting(error, of: request, to: context.logger).response(requestID: RequestScope.requestID)
        }
    }
}

extension Problem {
    /// The problem `error` answers, logged first with the request's path and id when it is ours to fix (a
    /// 5xx): what went wrong stays in the log, never in the answer. The API and the console report alike.
    static func reporting(_ error: any Error, of request: Request, to logger: Logger,
                          as message: Logger.Message = "request failed") -> Problem {
        let problem = Problem(error: error)
        if problem.isServerFault {
            logger.error(message, metadata: [
                "error": "\(String(reflecting: error))", "path": "\(request.uri.path)",
                "requestId": "\(RequestScope.requestID ?? "")",
            ])
        }
        return problem
    }
}
