import CatalogAPI
import CatalogCore
import CatalogStore
import Foundation
import HTTPTypes

extension CatalogAPIHandler {
    /// A new key; its token is in this answer only. A key limited to some apps hands out only what it has.
    func createKey(_ input: Operations.CreateKey.Input) async throws -> Operations.CreateKey.Output {
        let creator = try Access.require(.manageKeys)
        guard case .json(let body) = input.body else { throw Problem(status: .unsupportedMediaType) }
        try APIKey.validate(name: body.name, apps: body.apps, role: EnumMapping.convert(body.role))
        let apps = body.apps.map(Set.init)
        guard creator.covers(apps: apps) else {
            throw CatalogError.forbidden("a key limited to some apps may only create keys limited to those apps")
        }
        var missing: [FieldProblem] = []
        for (index, bundleID) in (body.apps ?? []).enumerated() where try await database.apps.find(bundleID) == nil {
            missing.append(FieldProblem(field: "apps[\(index)]", rule: "exists", message: "no app \(bundleID)"))
        }
        guard missing.isEmpty else { throw CatalogError.validationFailed(missing) }
        let token = KeyToken.generate()
        let key = APIKey(id: UUID(), name: body.name, role: EnumMapping.convert(body.role), apps: apps,
                         createdAt: now(), expiresAt: body.expiresAt, revokedAt: nil)
        try await database.keys.create(key, token: token, event: record(
            .keyCreated, by: creator, app: nil, changes: key.historyFields))
        return .created(.init(body: .json(.init(
            id: key.id.lowercaseText, name: key.name, role: body.role, apps: key.apps.map { $0.sorted() },
            createdAt: key.createdAt, expiresAt: key.expiresAt, token: token.text))))
    }

    func listKeys(_ input: Operations.ListKeys.Input) async throws -> Operations.ListKeys.Output {
        let caller = try Access.require(.manageKeys)
        let keys = try await database.keys.list().filter { caller.covers(apps: $0.apps) }
        return .ok(.init(body: .json(.init(items: keys.map(Components.Schemas.Key.init)))))
    }

    /// Revokes a key at once: its next request is refused. Revoking a revoked key changes nothing.
    func revokeKey(_ input: Operations.RevokeKey.Input) async throws -> Operations.RevokeKey.Output {
        let caller = try Access.require(.manageKeys)
        guard let id = UUID(text: input.path.keyId), let key = try await database.keys.find(id),
              caller.covers(apps: key.apps)
        else { throw CatalogError.notFound("no key \(input.path.keyId)") }
        _ = try await database.keys.revoke(id, at: now(), event: record(
            .keyRevoked, by: caller, app: nil, changes: key.historyFields))
        // The database's notice comes to this server too, a moment later; the answer must not come first.
        keyCache.forgetAll()
        return .noContent(.init())
    }

    func getCurrentKey(_ input: Operations.GetCurrentKey.Input) async throws -> Operations.GetCurrentKey.Output {
        .ok(.init(body: .json(.init(try Access.authenticated()))))
    }
}
