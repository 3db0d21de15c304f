import CatalogCore
import CatalogStore
import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// The headers of every console page.
enum ConsoleSecurity {
    /// Nothing but the console's own stylesheet and forms: no script at all, no inline style, no frames.
    static let contentSecurityPolicy = [
        "default-src 'none'", "style-src 'self'", "img-src 'self'", "form-action 'self'", "frame-ancestors 'none'",
        "base-uri 'none'",
    ].joined(separator: "; ")
}

/// Every console response's security headers, and any error turned into an HTML page (never problem JSON or
/// a stack trace): the outermost of the console's middlewares.
///
/// The Content-Security-Policy allows nothing but the console's own stylesheet and forms: no script at all, no
/// inline style, no frames, no plugins. Pages are never cached (a key's page may hold a fresh token).
struct ConsoleHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    let templates: ConsoleTemplates

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        var response: Response
        do {
            response = try await next(request, context)
        } catch {
            let problem = Problem.reporting(error, of: request, to: context.logger, as: "console request failed")
            let page = ErrorPage(chrome: ConsoleChrome.signedOut(problem.title),
                                 notice: ConsoleNotice(problem: problem))
            response = (try? templates.page("error", page, status: problem.status))
                ?? Response(status: problem.status, headers: [.contentType: "text/plain; charset=utf-8"],
                            body: ResponseBody(byteBuffer: .init(string: problem.title)))
            for field in problem.headers where field.name != .wwwAuthenticate { response.headers.append(field) }
        }
        response.headers[.contentSecurityPolicy] = ConsoleSecurity.contentSecurityPolicy
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[HTTPField.Name("Referrer-Policy")!] = "same-origin"
        response.headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        response.headers[HTTPField.Name("Cross-Origin-Opener-Policy")!] = "same-origin"
        if response.headers[.cacheControl] == nil { response.headers[.cacheControl] = "no-store" }
        return response
    }
}

/// Finds the request's session by its cookie and acts as its key for the rest of the request (as
/// ``AuthenticationMiddleware`` does for a bearer key, rate limit included). Without a live session (none, ended,
/// or its key revoked or expired), a page is redirected to sign-in and a form is refused. A POST must come from
/// the console's own pages: same origin as the browser says, and the session's CSRF token in the form.
///
/// The sign-in page, its form and the stylesheet need no session.
struct ConsoleSessionMiddleware<Context: RequestContext>: RouterMiddleware {
    let sessions: ConsoleSessionRepository
    let rateLimiter: RateLimiter<UUID>
    let templates: ConsoleTemplates

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let path = request.uri.path
        if path == ConsoleRoutes.signInPath || path == ConsoleRoutes.stylesheetPath {
            return try await next(request, context)
        }
        guard let id = ConsoleCookie.id(in: request),
              let found = try await sessions.find(idHash: ConsoleCookie.hash(id))
        else {
            guard request.method == .get || request.method == .head else {
                throw Unauthenticated(reason: "the session has ended; sign in again")
            }
            return ConsoleRoutes.redirect(to: ConsoleRoutes.signInPath)
        }
        let session = ConsoleSession(key: found.key, csrfToken: ConsoleSession.csrfToken(of: found.csrfSecret))
        try rateLimiter.admitOrRefuse(session.key.id)
        var request = request
        if request.method == .post {
            guard request.isSameOriginPost else {
                throw Problem("forbidden", .forbidden, "The form did not come from the console",
                              detail: "a form posted from another site is refused; nothing was changed")
            }
            let form = try await ConsoleForm.body(of: request)
            guard session.accepts(csrfToken: form["csrf"]) else {
                throw Problem("forbidden", .forbidden, "The form's security token is not this session's",
                              detail: "reload the page and try again; nothing was changed")
            }
            request.body = RequestBody(buffer: .init(string: form.encoded))
        }
        return try await ConsoleSession.$current.withValue(session) {
            try await RequestScope.$key.withValue(session.key) {
                try await next(request, context)
            }
        }
    }
}
