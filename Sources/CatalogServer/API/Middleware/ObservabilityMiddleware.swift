import Hummingbird
import Logging

/// Records every API request in the metrics (by route pattern, never by raw path, so that the number of
/// series stays bounded) and logs it with its request id, outcome and duration; counts it in flight until its
/// answer's head is ready (``RequestsInFlight``).
struct ObservabilityMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: ServiceMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let clock = ContinuousClock()
        let start = clock.now
        metrics.requestsInFlight.begin()
        defer { metrics.requestsInFlight.end() }
        let response = try await next(request, context)
        let duration = clock.now - start
        let route = context.endpointPath ?? "unmatched"
        metrics.request(route: route, method: request.method, status: response.status, duration: duration)
        context.logger.info("request", metadata: [
            "method": "\(request.method.rawValue)", "route": "\(route)", "status": "\(response.status.code)",
            "durationMs": "\(Double(duration.components.attoseconds / 1_000_000_000_000) / 1000 + Double(duration.components.seconds) * 1000)",
            "requestId": "\(RequestScope.requestID ?? "")",
        ])
        return response
    }
}
