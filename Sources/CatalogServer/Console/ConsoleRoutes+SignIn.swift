import CatalogCore
import CatalogStore
import Foundation
import HTTPTypes
import Hummingbird

extension ConsoleRoutes {
    /// The sign-in form: one password field for the key, posted, never remembered by the browser.
    func signInForm(_ request: Request) throws -> Response {
        try templates.page("sign-in", SignInPage(chrome: chrome("Sign in"), notice: nil))
    }

    /// Exchanges an API key for a session: the key is checked as the API checks a bearer key, a session is
    /// stored (only the hash of its id), and the browser gets the id in an HttpOnly, SameSite=Strict cookie.
    /// The key itself is neither stored nor sent back. A client key, which ships inside apps, cannot sign in.
    func signIn(_ request: Request) async throws -> Response {
        guard request.isSameOriginPost else {
            throw Problem("forbidden", .forbidden, "The form did not come from the console",
                          detail: "a sign-in posted from another site is refused")
        }
        let form = try await ConsoleForm.body(of: request)
        let refusal: String
        if let text = form.text("key"), text.count <= 200 {
            if let key = try await keys.authenticate(hash: KeyToken(text: text).hash) {
                if key.role != .client {
                    return try await open(for: key, request)
                }
                refusal = "A client key ships inside an app; it cannot sign in to the console."
            } else {
                refusal = "The key is unknown, revoked or expired."
            }
        } else {
            refusal = "Paste an API key (it starts with \(KeyToken.prefix))."
        }
        let problem = Problem("unauthorized", .unauthorized, "Not signed in", detail: refusal)
        return try templates.page("sign-in", SignInPage(chrome: chrome("Sign in"), notice: ConsoleNotice(problem: problem)),
                                  status: .unauthorized)
    }

    private func open(for key: APIKey, _ request: Request) async throws -> Response {
        let id = ConsoleCookie.newID()
        let lifetime = settings.sessionLifetime
        var expiresAt = now().addingTimeInterval(Double(lifetime.components.seconds))
        if let keyExpiry = key.expiresAt { expiresAt = min(expiresAt, keyExpiry) }
        try await sessions.open(idHash: ConsoleCookie.hash(id), keyID: key.id, csrfSecret: ConsoleRandom.bytes(32),
                                expiresAt: expiresAt)
        let seconds = max(1, Int(expiresAt.timeIntervalSince(now())))
        let cookie = ConsoleCookie.setting(id, lifetime: .seconds(seconds),
                                           secure: request.isHTTPS(trustingForwardedProto: settings.trustForwardedProto))
        return Self.redirect(to: "/console/apps", headers: [.setCookie: cookie])
    }

    /// Ends the session (in the database, so that a copied cookie is worthless too) and clears the cookie.
    func signOut(_ request: Request) async throws -> Response {
        if let id = ConsoleCookie.id(in: request) { try await sessions.close(idHash: ConsoleCookie.hash(id)) }
        let cookie = ConsoleCookie.clearing(secure: request.isHTTPS(trustingForwardedProto: settings.trustForwardedProto))
        return Self.redirect(to: Self.signInPath, headers: [.setCookie: cookie])
    }
}
