import CatalogAPI
import CatalogCore
import CatalogServer
import CatalogStore
import CatalogTestSupport
import Crypto
import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import NIOCore
import Testing

/// The console's routes on real PostgreSQL, in-process: sessions, CSRF, roles and scopes, `If-Match`, escaping
/// and the security headers. (Tests/ConsoleBrowserTests drives the same pages in a real browser.)
@Suite("Console over HTTP")
struct ConsoleTests {
    static let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]

    /// A signed-in browser: its session cookie and the CSRF token its pages carry.
    struct Browser: Sendable {
        let cookie: String
        let csrf: String

        var headers: HTTPFields { [.cookie: "iap_console_session=\(cookie)"] }
    }

    /// Signs in with `key` and reads the form token from the apps page.
    static func signIn(_ api: API, key: String) async throws -> Browser {
        let response = try await api.send(.post, "/console/sign-in", body: "key=\(encoded(key))", headers: form)
        #expect(response.status == .seeOther)
        let setCookie = try #require(response.headers[.setCookie])
        let cookie = try #require(setCookie.split(separator: ";").first?.split(separator: "=", maxSplits: 1).last)
        let page = try await api.send(.get, "/console/apps", headers: [.cookie: "iap_console_session=\(cookie)"])
        #expect(page.status == .ok)
        let csrf = try #require(token(in: String(buffer: page.body)))
        return Browser(cookie: String(cookie), csrf: csrf)
    }

    /// The page's "Next page" link, as the browser follows it.
    static func nextHref(_ html: String) -> String? {
        guard let next = html.range(of: #"" rel="next""#),
              let start = html.range(of: #"<a href=""#, options: .backwards, range: html.startIndex..<next.lowerBound)
        else { return nil }
        return String(html[start.upperBound..<next.lowerBound]).replacingOccurrences(of: "&amp;", with: "&")
    }

    static func token(in html: String) -> String? {
        guard let range = html.range(of: #"name="csrf" value=""#) else { return nil }
        return String(html[range.upperBound...].prefix { $0 != "\"" })
    }

    static func encoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }

    static func post(_ api: API, _ path: String, _ browser: Browser?, _ fields: [String: String],
                     headers extra: HTTPFields = [:]) async throws -> TestResponse {
        var headers = form
        if let browser { headers.append(contentsOf: browser.headers) }
        headers.append(contentsOf: extra)
        let body = fields.sorted { $0.key < $1.key }.map { "\($0.key)=\(encoded($0.value))" }.joined(separator: "&")
        return try await api.send(.post, path, body: body, headers: headers)
    }

    static func page(_ api: API, _ path: String, _ browser: Browser) async throws -> (HTTPResponse.Status, String) {
        let response = try await api.send(.get, path, headers: browser.headers)
        return (response.status, String(buffer: response.body))
    }

    @Test("sign-in exchanges a key for an HttpOnly, SameSite=Strict session; the key is stored nowhere, the id only hashed")
    func signIn() async throws {
        let fixture = try await APIFixture.forSuite("console_sign_in")
        let admin = try await fixture.key(.admin)
        try await fixture.run { api in
            try await api.createApp("console.sign.in", key: admin)
            let response = try await api.send(.post, "/console/sign-in", body: "key=\(Self.encoded(admin))",
                                              headers: Self.form)
            #expect(response.status == .seeOther && response.headers[.location] == "/console/apps")
            let cookie = try #require(response.headers[.setCookie])
            #expect(cookie.hasPrefix("iap_console_session="))
            for attribute in ["Path=/console", "HttpOnly", "SameSite=Strict", "Max-Age=28"] {
                #expect(cookie.contains(attribute), "\(attribute) in \(cookie)")
            }
            #expect(!cookie.contains("Secure"), "plain http: a Secure cookie would never come back")
            #expect(!cookie.contains(admin))
            let id = String(cookie.split(separator: ";")[0].dropFirst("iap_console_session=".count))
            let (status, html) = try await Self.page(api, "/console/apps", Self.Browser(cookie: id, csrf: ""))
            #expect(status == .ok && html.contains("console.sign.in"))
            #expect(!html.contains(admin))

            let stored = try await TestDatabase.withDatabase(fixture.url) { database in
                try await StoreValues.strings("SELECT encode(id_hash, 'hex') FROM console_sessions", in: database)
            }
            #expect(stored == [ConsoleCookieHash.hex(id)])

            // A wrong key, a client key and no key are refused with the form again, and no cookie.
            let client = try await fixture.key(.client, apps: ["console.sign.in"])
            for key in ["iapk_wrong", client, ""] {
                let refused = try await api.send(.post, "/console/sign-in", body: "key=\(Self.encoded(key))",
                                                 headers: Self.form)
                #expect(refused.status == .unauthorized && refused.headers[.setCookie] == nil)
                #expect(String(buffer: refused.body).contains(#"id="key""#))
            }
        }
    }

    @Test("the cookie is Secure when a trusted proxy says the browser used https, and only then")
    func secureBehindProxy() async throws {
        let fixture = try await APIFixture.forSuite("console_secure")
        let admin = try await fixture.key(.admin)
        let proxied: HTTPFields = [.contentType: "application/x-www-form-urlencoded",
                                   HTTPField.Name("X-Forwarded-Proto")!: "https"]
        var trusting = ConsoleSettings.standard
        trusting.trustForwardedProto = true
        try await fixture.run(console: trusting) { api in
            let response = try await api.send(.post, "/console/sign-in", body: "key=\(Self.encoded(admin))", headers: proxied)
            #expect(response.headers[.setCookie]?.hasSuffix("; Secure") == true)
        }
        try await fixture.run { api in
            let response = try await api.send(.post, "/console/sign-in", body: "key=\(Self.encoded(admin))", headers: proxied)
            #expect(response.headers[.setCookie]?.contains("Secure") == false, "an untrusted header changes nothing")
        }
    }

    @Test("every console answer carries the security headers: a strict CSP, nosniff, no framing, no caching")
    func securityHeaders() async throws {
        let fixture = try await APIFixture.forSuite("console_headers")
        let admin = try await fixture.key(.admin)
        try await fixture.run { api in
            let browser = try await Self.signIn(api, key: admin)
            let answers = [
                try await api.send(.get, "/console/sign-in"),
                try await api.send(.get, "/console/apps", headers: browser.headers),
                try await api.send(.get, "/console/apps"),
                try await api.send(.get, "/console/no/such/page", headers: browser.headers),
                try await api.send(.post, "/console/sign-out", headers: browser.headers),
            ]
            for answer in answers {
                #expect(answer.headers[.contentSecurityPolicy]
                    == "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
                #expect(answer.headers[.xContentTypeOptions] == "nosniff")
                #expect(answer.headers[HTTPField.Name("Referrer-Policy")!] == "same-origin")
                #expect(answer.headers[HTTPField.Name("X-Frame-Options")!] == "DENY")
                #expect(answer.headers[.cacheControl] == "no-store")
            }
            let notFound = try await api.send(.get, "/console/no/such/page", headers: browser.headers)
            #expect(notFound.status == .notFound && notFound.headers[.contentType] == "text/html; charset=utf-8")
            let page = String(buffer: try await api.send(.get, "/console/apps", headers: browser.headers).body)
            #expect(!page.contains("<script") && !page.contains("style=") && !page.contains("<style"))
            let css = try await api.send(.get, "/console/static/console.css")
            #expect(css.status == .ok && css.headers[.contentType] == "text/css; charset=utf-8")
        }
    }

    @Test("without a live session, pages lead to sign-in and forms change nothing")
    func noSession() async throws {
        let fixture = try await APIFixture.forSuite("console_no_session")
        let admin = try await fixture.key(.admin)
        try await fixture.run { api in
            try await api.createApp("console.no.session", key: admin)
            let product = try await api.createProduct("console.no.session", "coins", type: .consumable, key: admin)
            let page = try await api.send(.get, "/console/apps/console.no.session/products/coins")
            #expect(page.status == .seeOther && page.headers[.location] == "/console/sign-in")
            let forged = try await api.send(.get, "/console/apps", headers: [.cookie: "iap_console_session=\(admin)"])
            #expect(forged.status == .seeOther, "a key is no session id")
            let posted = try await Self.post(api, "/console/apps/console.no.session/products/coins/actions", nil,
                                             ["action": "approve", "version": "\(product.version)", "csrf": "x"])
            #expect(posted.status == .unauthorized)
            #expect(try await api.product("console.no.session", "coins", key: admin).state == .pendingDeveloperApproval)
        }
    }

    @Test("a form without the session's CSRF token, or from another site, is refused and changes nothing")
    func csrf() async throws {
        let fixture = try await APIFixture.forSuite("console_csrf")
        let admin = try await fixture.key(.admin)
        try await fixture.run { api in
            try await api.createApp("console.csrf", key: admin)
            try await api.createProduct("console.csrf", "coins", type: .consumable, key: admin)
            let browser = try await Self.signIn(api, key: admin)
            let other = try await Self.signIn(api, key: admin)
            let path = "/console/apps/console.csrf/products/coins/actions"
            let attempts: [(String, HTTPFields)] = [
                ("", [:]), ("forged", [:]), (other.csrf, [:]),
                (browser.csrf, [HTTPField.Name("Sec-Fetch-Site")!: "cross-site"]), (browser.csrf, [.origin: "null"]),
            ]
            for (csrf, extra) in attempts {
                let refused = try await Self.post(api, path, browser, ["action": "approve", "version": "1", "csrf": csrf],
                                                  headers: extra)
                #expect(refused.status == .forbidden, "token \(csrf.prefix(6)) \(extra)")
            }
            #expect(try await api.product("console.csrf", "coins", key: admin).state == .pendingDeveloperApproval)
            let accepted = try await Self.post(api, path, browser, ["action": "approve", "version": "1", "csrf": browser.csrf],
                                               headers: [HTTPField.Name("Sec-Fetch-Site")!: "same-origin"])
            #expect(accepted.status == .seeOther)
            #expect(accepted.headers[.location] == "/console/apps/console.csrf/products/coins?done=approve")
            #expect(try await api.product("console.csrf", "coins", key: admin).state == .approvedByDeveloper)
            let event = try #require(try await api.history("console.csrf", "coins", key: admin).last)
            #expect(event.action == .approve && event.actor.name == "admin test key")
        }
    }

    @Test("a page that is out of date cannot move the product: 412, nothing changed, the page as it is now")
    func staleIfMatch() async throws {
        let fixture = try await APIFixture.forSuite("console_stale")
        let admin = try await fixture.key(.admin)
        try await fixture.run { api in
            try await api.createApp("console.stale", key: admin)
            try await api.createProduct("console.stale", "coins", type: .consumable, key: admin)
            let browser = try await Self.signIn(api, key: admin)
            _ = try await api.send(.patch, "/v1/apps/console.stale/products/coins", key: admin,
                                   json: ["referenceName": "Renamed"])
            let stale = try await Self.post(api, "/console/apps/console.stale/products/coins/actions", browser,
                                            ["action": "approve", "version": "1", "csrf": browser.csrf])
            #expect(stale.status == .preconditionFailed)
            let html = String(buffer: stale.body)
            #expect(html.contains("changed since this page was loaded") && html.contains("Renamed"))
            #expect(html.contains(#"name="version" value="2""#))
            #expect(try await api.product("console.stale", "coins", key: admin).state == .pendingDeveloperApproval)
            // A refusal of the lifecycle is shown on the page with the API's status and words.
            let refused = try await Self.post(api, "/console/apps/console.stale/products/coins/actions", browser,
                                              ["action": "reject", "version": "2", "csrf": browser.csrf])
            #expect(refused.status == .conflict && String(buffer: refused.body).contains("not allowed from PENDING_DEVELOPER_APPROVAL"))
        }
    }

    @Test("each role sees the actions and pages it may use: an auditor none, a reviewer its own, keys for admins only")
    func roles() async throws {
        let fixture = try await APIFixture.forSuite("console_roles")
        let keys = try await fixture.keys()
        try await fixture.run { api in
            try await api.createApp("console.roles", key: keys.admin)
            try await api.createProduct("console.roles", "coins", type: .consumable, key: keys.admin)
            try await api.move(.approve, "console.roles", "coins", key: keys.admin)
            try await api.move(.submit, "console.roles", "coins", key: keys.admin)
            let path = "/console/apps/console.roles/products/coins"
            let buttons: @Sendable (String) -> [String] = { html in
                html.components(separatedBy: #"name="action" value=""#).dropFirst().map { String($0.prefix { $0 != "\"" }) }
            }
            let auditor = try await Self.signIn(api, key: keys.auditor)
            let (status, html) = try await Self.page(api, path, auditor)
            #expect(status == .ok && buttons(html).isEmpty && html.contains("takes no actions"))
            #expect(!html.contains(#"href="/console/keys""#))
            let reviewer = try await Self.signIn(api, key: keys.reviewer)
            #expect(buttons(try await Self.page(api, path, reviewer).1) == ["start_review"])
            let developer = try await Self.signIn(api, key: keys.developer)
            #expect(buttons(try await Self.page(api, path, developer).1) == ["withdraw"])
            #expect(try await Self.page(api, "/console/keys", developer).0 == .forbidden)
            // A role's action it may not take is refused as the API refuses it.
            let refused = try await Self.post(api, path + "/actions", auditor,
                                              ["action": "withdraw", "version": "3", "csrf": auditor.csrf])
            #expect(refused.status == .forbidden)
            let admin = try await Self.signIn(api, key: keys.admin)
            let keysPage = try await Self.page(api, "/console/keys", admin)
            #expect(keysPage.0 == .ok && keysPage.1.contains("auditor test key"))
            #expect(!keysPage.1.contains(keys.auditor))
        }
    }

    @Test("a key limited to some apps sees only them: 404 outside, in pages and forms alike")
    func scope() async throws {
        let fixture = try await APIFixture.forSuite("console_scope")
        let admin = try await fixture.key(.admin)
        let scoped = try await fixture.key(.developer, apps: ["console.mine"])
        try await fixture.run { api in
            try await api.createApp("console.mine", key: admin)
            try await api.createApp("console.theirs", key: admin)
            try await api.createProduct("console.theirs", "secret.product", type: .consumable, key: admin)
            let browser = try await Self.signIn(api, key: scoped)
            let apps = try await Self.page(api, "/console/apps", browser)
            #expect(apps.1.contains("console.mine") && !apps.1.contains("console.theirs"))
            for path in ["/console/apps/console.theirs/products", "/console/apps/console.theirs/products/secret.product",
                         "/console/history?app=console.theirs", "/console/apps/console.theirs/products/none"] {
                let (status, html) = try await Self.page(api, path, browser)
                #expect(status == .notFound, "\(path)")
                #expect(!html.contains("secret.product") || path.hasSuffix("secret.product"))
            }
            #expect(!(try await Self.page(api, "/console/history", browser).1.contains("secret.product")))
            let posted = try await Self.post(api, "/console/apps/console.theirs/products/secret.product/actions", browser,
                                             ["action": "approve", "version": "1", "csrf": browser.csrf])
            #expect(posted.status == .notFound)
            #expect(try await api.product("console.theirs", "secret.product", key: admin).state == .pendingDeveloperApproval)
        }
    }

    @Test("revoking the key ends its sessions at once; signing out ends one in the database; an expired one is gone")
    func sessionsEnd() async throws {
        let fixture = try await APIFixture.forSuite("console_sessions_end")
        let admin = try await fixture.key(.admin)
        try await fixture.run { api in
            let created = try expect(try await api.send(.post, "/v1/keys", key: admin,
                                                        json: ["role": "auditor", "name": "leaving"]),
                                     .created, as: Components.Schemas.CreatedKey.self)
            let browser = try await Self.signIn(api, key: created.token)
            #expect(try await Self.page(api, "/console/apps", browser).0 == .ok)
            #expect(try await api.send(.delete, "/v1/keys/\(created.id)", key: admin).status == .noContent)
            let after = try await api.send(.get, "/console/apps", headers: browser.headers)
            #expect(after.status == .seeOther && after.headers[.location] == "/console/sign-in")

            let signedIn = try await Self.signIn(api, key: admin)
            let out = try await Self.post(api, "/console/sign-out", signedIn, ["csrf": signedIn.csrf])
            #expect(out.status == .seeOther && out.headers[.setCookie]?.contains("Max-Age=0") == true)
            #expect(try await api.send(.get, "/console/apps", headers: signedIn.headers).status == .seeOther,
                    "a copy of the cookie is worthless after sign-out")

            let expiring = try await Self.signIn(api, key: admin)
            try await TestDatabase.execute(
                "UPDATE console_sessions SET expires_at = created_at + interval '1 millisecond'", in: fixture.url)
            #expect(try await api.send(.get, "/console/apps", headers: expiring.headers).status == .seeOther)
            let remaining = try await TestDatabase.withDatabase(fixture.url) { database in
                try await StoreValues.strings("SELECT key_id::text FROM console_sessions WHERE key_id = '\(created.id)'",
                                              in: database)
            }
            #expect(remaining.isEmpty, "the revocation's trigger removed its sessions")
        }
    }

    @Test("names holding HTML are shown as text, never as markup")
    func escaping() async throws {
        let fixture = try await APIFixture.forSuite("console_escaping")
        let admin = try await fixture.key(.admin, name: "Ann <b>bold</b>")
        let hostile = #"<script>alert("x")</script>"#
        try await fixture.run { api in
            _ = try await api.send(.post, "/v1/apps", key: admin,
                                   json: ["bundleId": "console.escaping", "name": "App <img src=x onerror=alert(1)>"])
            _ = try await api.send(.post, "/v1/apps/console.escaping/products", key: admin, json: [
                "productId": "hostile", "referenceName": hostile, "type": "CONSUMABLE",
            ])
            let browser = try await Self.signIn(api, key: admin)
            for path in ["/console/apps", "/console/apps/console.escaping/products",
                         "/console/apps/console.escaping/products/hostile", "/console/history"] {
                let (status, html) = try await Self.page(api, path, browser)
                #expect(status == .ok)
                #expect(!html.contains("<script") && !html.contains("<img") && !html.contains("<b>"), "\(path)")
            }
            let product = try await Self.page(api, "/console/apps/console.escaping/products/hostile", browser).1
            #expect(product.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"))
            #expect(product.contains("Ann &lt;b&gt;bold&lt;/b&gt;"))
        }
    }

    @Test("history and verification through the console: the API's filters, a green verified chain, a broken one named")
    func historyAndVerification() async throws {
        let fixture = try await APIFixture.forSuite("console_history")
        let admin = try await fixture.key(.admin)
        try await fixture.run { api in
            try await api.createApp("console.history", key: admin)
            try await api.createProduct("console.history", "coins", type: .consumable, key: admin)
            try await api.move(.approve, "console.history", "coins", key: admin, reason: "looks right")
            let browser = try await Self.signIn(api, key: admin)
            let filtered = try await Self.page(api, "/console/history?app=console.history&action=approve", browser)
            #expect(filtered.0 == .ok && filtered.1.contains("looks right"))
            #expect(filtered.1.components(separatedBy: #"<li class="event"#).count == 2)
            let badFilter = try await Self.page(api, "/console/history?action=dance&since=yesterday", browser)
            #expect(badFilter.0 == .unprocessableContent && badFilter.1.contains("action") && badFilter.1.contains("since"))
            let verified = try await Self.page(api, "/console/history/verify?app=console.history", browser)
            #expect(verified.0 == .ok && verified.1.contains("Chain verified"))

            try await TestDatabase.execute("ALTER TABLE history_events DISABLE TRIGGER history_events_append_only",
                                           in: fixture.url)
            try await TestDatabase.execute("UPDATE history_events SET reason = 'rewritten' WHERE reason = 'looks right'",
                                           in: fixture.url)
            try await TestDatabase.execute("ALTER TABLE history_events ENABLE TRIGGER history_events_append_only",
                                           in: fixture.url)
            let broken = try await Self.page(api, "/console/history/verify?app=console.history", browser)
            #expect(broken.0 == .ok && broken.1.contains("A chain is broken") && broken.1.contains("hash-mismatch"))
        }
    }

    @Test("products page a keyset page at a time with the filters kept; an unknown filter is named")
    func productPages() async throws {
        let fixture = try await APIFixture.forSuite("console_pages")
        let admin = try await fixture.key(.admin)
        try await fixture.run { api in
            try await api.createApp("console.pages", key: admin)
            for index in 1...52 {
                try await api.createProduct("console.pages", String(format: "item.%03d", index), type: .consumable, key: admin)
            }
            let browser = try await Self.signIn(api, key: admin)
            let first = try await Self.page(api, "/console/apps/console.pages/products?q=item", browser).1
            #expect(first.contains("item.050") && !first.contains("item.051"))
            let next = try #require(Self.nextHref(first))
            #expect(next.contains("q=item") && next.contains("cursor="))
            let second = try await Self.page(api, next, browser).1
            #expect(second.contains("item.051") && second.contains("item.052") && !second.contains("item.050"))
            #expect(!second.contains(#"rel="next""#))
            let refused = try await Self.page(api, "/console/apps/console.pages/products?state=GONE", browser)
            #expect(refused.0 == .unprocessableContent && refused.1.contains("state: is not a review state"))
        }
    }

    @Test("an admin makes a key in the console (its token shown once) and revokes it; others may not")
    func keys() async throws {
        let fixture = try await APIFixture.forSuite("console_keys")
        let keys = try await fixture.keys()
        try await fixture.run { api in
            try await api.createApp("console.keys", key: keys.admin)
            let admin = try await Self.signIn(api, key: keys.admin)
            let created = try await Self.post(api, "/console/keys", admin,
                                              ["csrf": admin.csrf, "name": "Finance", "role": "auditor", "apps": "console.keys"])
            #expect(created.status == .created)
            let html = String(buffer: created.body)
            let token = try #require(html.range(of: #"id="token" value=""#).map {
                String(html[$0.upperBound...].prefix { $0 != "\"" })
            })
            #expect(token.hasPrefix("iapk_"))
            let me = try expect(try await api.send(.get, "/v1/me", key: token), .ok, as: Components.Schemas.Key.self)
            #expect(me.role == .auditor && me.apps == ["console.keys"])
            let listed = try await Self.page(api, "/console/keys", admin).1
            #expect(listed.contains("Finance") && !listed.contains(token), "the token is shown once")

            let invalid = try await Self.post(api, "/console/keys", admin, ["csrf": admin.csrf, "name": "", "role": "auditor"])
            #expect(invalid.status == .unprocessableContent && String(buffer: invalid.body).contains("name"))

            let revoked = try await Self.post(api, "/console/keys/\(me.id)/revoke", admin, ["csrf": admin.csrf])
            #expect(revoked.status == .seeOther && revoked.headers[.location] == "/console/keys?done=revoked")
            _ = try problem(try await api.send(.get, "/v1/me", key: token), .unauthorized, "unauthorized")

            let developer = try await Self.signIn(api, key: keys.developer)
            let refused = try await Self.post(api, "/console/keys", developer,
                                              ["csrf": developer.csrf, "name": "Mine", "role": "admin"])
            #expect(refused.status == .forbidden)
        }
    }

    @Test("the key, the session id and the form token are never logged, and the key never comes back in an answer")
    func secretsStayOut() async throws {
        LogCapture.install()
        let fixture = try await APIFixture.forSuite("console_secrets")
        let admin = try await fixture.key(.admin)
        let (browser, answers) = try await fixture.run(logLevel: .trace) { api in
            try await api.createApp("console.secrets", key: admin)
            try await api.createProduct("console.secrets", "coins", type: .consumable, key: admin)
            var answers: [String] = []
            let wrong = try await api.send(.post, "/console/sign-in", body: "key=\(Self.encoded(admin + "x"))", headers: Self.form)
            answers.append(String(buffer: wrong.body))
            let browser = try await Self.signIn(api, key: admin)
            for path in ["/console/apps", "/console/apps/console.secrets/products/coins", "/console/history", "/console/keys"] {
                answers.append(try await Self.page(api, path, browser).1)
            }
            let acted = try await Self.post(api, "/console/apps/console.secrets/products/coins/actions", browser,
                                            ["action": "approve", "version": "1", "csrf": browser.csrf])
            answers.append(String(buffer: acted.body))
            _ = try await Self.post(api, "/console/sign-out", browser, ["csrf": browser.csrf])
            return (browser, answers)
        }
        let logged = LogCapture.text
        #expect(logged.contains("/console/sign-in"), "the capture saw the console's requests")
        for secret in [admin, String(admin.dropFirst(5).prefix(20)), browser.cookie, browser.csrf] {
            #expect(!logged.contains(secret))
        }
        #expect(answers.allSatisfy { !$0.contains(admin) && !$0.contains(String(admin.dropFirst(5))) })
    }
}

/// The hash under which the store keeps a session id: SHA-256 of the cookie's value, in hex.
enum ConsoleCookieHash {
    static func hex(_ id: String) -> String {
        SHA256.hash(data: Data(id.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
