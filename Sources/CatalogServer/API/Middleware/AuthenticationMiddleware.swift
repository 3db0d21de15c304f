import CatalogCore
import CatalogFiles
import CatalogStore
import Foundation
import Hummingbird

/// Resolves `Authorization: Bearer <token>` to its API key for the rest of the request. A request without
/// the header goes on only to a public route; anything else answers 401 at once, before its body or query is
/// read (a caller without a key learns nothing from validation errors). A header with an unknown, revoked
/// or expired token is refused at once, whatever the route. A key over its rate limit is answered 429 with
/// `Retry-After`: a client key has a limit of its own (it is one key for every install of its app). Keys already
/// seen come from ``KeyCache``, without a trip to the database.
struct AuthenticationMiddleware<Context: RequestContext>: RouterMiddleware {
    let keys: KeyRepository
    let cache: KeyCache
    let rateLimiter: RateLimiter<UUID>
    let clientRateLimiter: RateLimiter<UUID>

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        guard let header = request.headers[.authorization] else {
            guard Self.isPublic(request) else { throw Unauthenticated(reason: "send Authorization: Bearer <key>") }
            return try await next(request, context)
        }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer", !parts[1].isEmpty, parts[1].count <= 200 else {
            throw Unauthenticated(reason: "the Authorization header must be Bearer <key>")
        }
        guard let key = try await authenticate(KeyToken(text: String(parts[1]))) else {
            throw Unauthenticated(reason: "the key is unknown, revoked or expired")
        }
        let limiter = key.role == .client ? clientRateLimiter : rateLimiter
        try limiter.admitOrRefuse(key.id)
        return try await RequestScope.$key.withValue(key) {
            try await next(request, context)
        }
    }

    private func authenticate(_ token: KeyToken) async throws -> APIKey? {
        let hash = token.hash
        if let key = cache.key(for: hash, at: Date()) { return key }
        let ticket = cache.ticket()
        guard let key = try await keys.authenticate(hash: hash) else { return nil }
        if let ticket { cache.store(key, for: hash, ticket: ticket) }
        return key
    }

    /// The routes anyone may call: health, the product identifiers, the OpenAPI document and the metrics
    /// (the document's operations with `security: []`, and the two routes outside it), and the App Store's
    /// notifications, which authenticate themselves by their signature.
    static func isPublic(_ request: Request) -> Bool {
        if request.method == .post { return PurchaseRoute(request) == .appStoreNotification }
        guard request.method == .get || request.method == .head else { return false }
        switch request.uri.path {
        case "/v1/health/live", "/v1/health/ready", "/openapi.yaml", "/metrics", CatalogFileSchema.path: return true
        default: return IdentifierRoute.isRoute(path: request.uri.path)
        }
    }
}
