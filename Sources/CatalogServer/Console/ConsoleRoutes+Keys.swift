import CatalogAPI
import CatalogCore
import Foundation
import HTTPTypes
import Hummingbird

extension ConsoleRoutes {
    /// The keys (admin): every key the caller covers, a form for a new one, a revoke button for each active one.
    func keysPage(_ request: Request) async throws -> Response {
        let done = ConsoleForm.query(of: request).text("done") == "revoked"
        do {
            return try await keysView(notice: done ? ConsoleNotice(success: "Key revoked",
                                                                   detail: "Its requests and console sessions are refused from now on.") : nil,
                                      created: nil, status: .ok)
        } catch {
            return try errorPage(error)
        }
    }

    /// Makes a key (`createKey`); its token is shown on the answer page, this once.
    func createKey(_ request: Request) async throws -> Response {
        let form = try await ConsoleForm.body(of: request)
        do {
            guard let role = form.text("role").flatMap(Components.Schemas.Role.init(rawValue:)) else {
                throw CatalogError.validationFailed([FieldProblem(field: "role", rule: "value", message: "is not a role")])
            }
            let apps = form.text("apps")?.split(whereSeparator: { $0 == "," || $0.isWhitespace }).map(String.init)
            let created = try await api.createKey(.init(body: .json(.init(
                role: role, name: form["name"] ?? "", apps: apps?.isEmpty == false ? apps : nil)))).created.body.json
            return try await keysView(
                notice: ConsoleNotice(success: "Key created", detail: "Copy its token now: it is shown this once."),
                created: .init(name: created.name, role: created.role.rawValue, token: created.token), status: .created)
        } catch {
            let problem = Problem(error: error)
            guard problem.status == .unprocessableContent || problem.status == .badRequest else { return try errorPage(error) }
            return try await keysView(notice: ConsoleNotice(problem: problem), created: nil, status: problem.status)
        }
    }

    /// Revokes a key (`revokeKey`): its API requests and its console sessions stop at once.
    func revokeKey(_ request: Request, keyID: String) async throws -> Response {
        do {
            _ = try await api.revokeKey(.init(path: .init(keyId: keyID))).noContent
            return Self.redirect(to: "/console/keys?done=revoked")
        } catch {
            return try errorPage(error)
        }
    }

    private func keysView(notice: ConsoleNotice?, created: KeysPage.CreatedKey?, status: HTTPResponse.Status)
        async throws -> Response
    {
        let caller = try Access.require(.manageKeys)
        let keys = try await api.listKeys(.init()).ok.body.json.items
        let rows = keys.map { key in
            KeyRow(id: key.id, name: key.name, role: key.role.rawValue, apps: key.apps?.joined(separator: ", ") ?? "every app",
                   createdAt: Self.time(key.createdAt).display, expiresAt: key.expiresAt.map { Self.time($0).display },
                   revokedAt: key.revokedAt.map { Self.time($0).display },
                   active: key.revokedAt == nil && (key.expiresAt.map { $0 > now() } ?? true),
                   isCaller: key.id == caller.id.lowercaseText,
                   revokeHref: "/console/keys/\(Self.segment(key.id))/revoke")
        }
        return try templates.page("keys", KeysPage(
            chrome: chrome("Keys", section: "keys"), keys: rows,
            roles: ConsoleOption.list(KeyRole.allCases.map(\.rawValue), selected: "auditor", any: nil),
            notice: notice, created: created), status: status)
    }
}
