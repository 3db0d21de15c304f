import CatalogCore
import CatalogStore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The console (docs/console.md): server-rendered pages under `/console` for people who would rather look than
/// type. It acts through the same operations as the API (``CatalogAPIHandler``), as the session's key, so the
/// API's rules hold unchanged: roles, scopes (404 outside a key's apps), validation, `If-Match`, history.
///
/// Its routes get their own middlewares: ``ConsoleHeadersMiddleware`` (security headers, errors as HTML
/// pages) and ``ConsoleSessionMiddleware`` (the session cookie instead of a bearer key, and the CSRF check).
struct ConsoleRoutes: Sendable {
    static let root = "/console"
    static let signInPath = "/console/sign-in"
    static let stylesheetPath = "/console/static/console.css"

    let api: CatalogAPIHandler
    let sessions: ConsoleSessionRepository
    let keys: KeyRepository
    let rateLimiter: RateLimiter<UUID>
    let settings: ConsoleSettings
    let now: @Sendable () -> Date
    let templates: ConsoleTemplates

    init(api: CatalogAPIHandler, sessions: ConsoleSessionRepository, keys: KeyRepository, rateLimiter: RateLimiter<UUID>,
         settings: ConsoleSettings, now: @escaping @Sendable () -> Date) throws {
        self.api = api
        self.sessions = sessions
        self.keys = keys
        self.rateLimiter = rateLimiter
        self.settings = settings
        self.now = now
        templates = try ConsoleTemplates()
    }

    /// Adds the console's routes to `router`, each behind the console's middlewares only.
    func mount(on router: Router<BasicRequestContext>) {
        let console = router.group(RouterPath(Self.root))
            .add(middleware: ConsoleHeadersMiddleware(templates: templates))
            .add(middleware: ConsoleSessionMiddleware(sessions: sessions, rateLimiter: rateLimiter, templates: templates))
        console.get { _, _ in Self.redirect(to: "/console/apps") }
        console.get("static/console.css") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/css; charset=utf-8", .cacheControl: "public, max-age=300"],
                     body: ResponseBody(byteBuffer: templates.stylesheet))
        }
        console.get("sign-in") { request, _ in try signInForm(request) }
        console.post("sign-in") { request, _ in try await signIn(request) }
        console.post("sign-out") { request, _ in try await signOut(request) }
        console.get("apps") { request, _ in try await appsPage(request) }
        console.get("apps/:bundleId/products") { request, context in
            try await productsPage(request, bundleID: try Self.parameter("bundleId", context))
        }
        console.get("apps/:bundleId/products/:productId") { request, context in
            try await productPage(request, bundleID: try Self.parameter("bundleId", context),
                                  productID: try Self.parameter("productId", context))
        }
        console.post("apps/:bundleId/products/:productId/actions") { request, context in
            try await takeAction(request, bundleID: try Self.parameter("bundleId", context),
                                 productID: try Self.parameter("productId", context))
        }
        console.get("apps/:bundleId/transactions") { request, context in
            try await transactionsPage(request, bundleID: try Self.parameter("bundleId", context))
        }
        console.get("apps/:bundleId/transactions/summary") { request, context in
            try await summaryPage(request, bundleID: try Self.parameter("bundleId", context))
        }
        console.get("apps/:bundleId/transactions/:transactionId") { request, context in
            try await transactionPage(request, bundleID: try Self.parameter("bundleId", context),
                                      transactionID: try Self.parameter("transactionId", context))
        }
        // Signals (issue 23) come here: `apps/:bundleId/signals`, a page calling `listSignals` as the transactions'
        // pages call their operations (ConsoleRoutes+Transactions.swift), with their view models in a
        // ConsoleViews+Signals.swift and a link beside the ledger's on the apps page. Not built yet.
        console.get("history") { request, _ in try await historyPage(request) }
        console.get("history/verify") { request, _ in try await verifyPage(request) }
        console.get("keys") { request, _ in try await keysPage(request) }
        console.post("keys") { request, _ in try await createKey(request) }
        console.post("keys/:keyId/revoke") { request, context in
            try await revokeKey(request, keyID: try Self.parameter("keyId", context))
        }
        console.get("lifecycle") { _, _ in
            try templates.page("lifecycle", LifecyclePage(chrome: chrome("The review lifecycle", section: "lifecycle"),
                                                          diagram: LifecycleDiagram()))
        }
        // Anything else under /console is the console's own 404, not the API's.
        console.get("**") { _, _ -> Response in throw Problem.notFound("no such page") }
        console.post("**") { _, _ -> Response in throw Problem.notFound("no such page") }
    }

    // MARK: Shared by the pages

    /// What every page shows around its content; `section` marks the navigation's current item.
    func chrome(_ title: String, section: String? = nil) -> ConsoleChrome {
        guard let session = ConsoleSession.current else {
            return .signedOut(title)
        }
        let key = session.key
        var nav = [("Apps", "/console/apps", "apps"), ("History", "/console/history", "history"),
                   ("Lifecycle", "/console/lifecycle", "lifecycle")]
        if key.role.may(.manageKeys) { nav.append(("Keys", "/console/keys", "keys")) }
        return ConsoleChrome(
            title: title,
            signedIn: .init(keyName: key.name, role: key.role.rawValue,
                            scope: key.apps.map { $0.sorted().joined(separator: ", ") } ?? "every app"),
            nav: nav.map { ConsoleChrome.NavItem(label: $0.0, href: $0.1, current: $0.2 == section) },
            mayReadLedger: key.role.may(.readPurchases),
            csrf: session.csrfToken)
    }

    /// A page for a refusal: the problem the API would have answered, as HTML, with its status.
    func errorPage(_ error: any Error) throws -> Response {
        let problem = Problem(error: error)
        return try templates.page("error", ErrorPage(chrome: chrome(problem.title), notice: ConsoleNotice(problem: problem)),
                                  status: problem.status)
    }

    /// `See Other` to `location`: after a POST, the browser reads the result with a GET.
    static func redirect(to location: String, headers extra: HTTPFields = [:]) -> Response {
        var headers = extra
        headers[.location] = location
        return Response(status: .seeOther, headers: headers)
    }

    static func parameter(_ name: String, _ context: BasicRequestContext) throws -> String {
        guard let value = context.parameters.get(name) else { throw Problem.notFound("no such page") }
        return value.removingPercentEncoding ?? value
    }

    /// `text` as one path segment of a URL.
    static func segment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    /// A URL of `path` with the non-empty `query` items, encoded.
    static func href(_ path: String, _ query: [(String, String?)]) -> String {
        let items = query.compactMap { name, value in
            value.flatMap { $0.isEmpty ? nil : "\(name)=\($0.addingPercentEncoding(withAllowedCharacters: unreserved) ?? $0)" }
        }
        return items.isEmpty ? path : path + "?" + items.joined(separator: "&")
    }

    private static let unreserved = CharacterSet(charactersIn:
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// A time as people read it (UTC, to the second), and as machines do.
    static func time(_ date: Date) -> (display: String, machine: String) {
        let display = Date.ISO8601FormatStyle(dateSeparator: .dash, dateTimeSeparator: .space, timeZone: .gmt)
            .format(date)
        return (display.replacingOccurrences(of: "Z", with: " UTC"), date.formatted(.iso8601))
    }

    static func productHref(_ bundleID: String, _ productID: String) -> String {
        "/console/apps/\(segment(bundleID))/products/\(segment(productID))"
    }
}
