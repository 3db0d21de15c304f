import CatalogAPI
import CatalogCore
import CatalogStore
import HTTPTypes

extension CatalogAPIHandler {
    func createApp(_ input: Operations.CreateApp.Input) async throws -> Operations.CreateApp.Output {
        let key = try Access.require(.manageApps)
        guard key.apps == nil else {
            throw CatalogError.forbidden("a key limited to some apps may not create apps")
        }
        guard case .json(let body) = input.body else { throw Problem(status: .unsupportedMediaType) }
        let time = now()
        let app = try App(bundleID: body.bundleId, name: body.name, newsstand: body.newsstand ?? false,
                          primaryLocale: body.primaryLocale ?? App.defaultPrimaryLocale, createdAt: time,
                          updatedAt: time).validated()
        let changes = [
            FieldChange(field: "name", old: nil, new: app.name),
            FieldChange(field: "newsstand", old: nil, new: app.newsstand),
            FieldChange(field: "primaryLocale", old: nil, new: app.primaryLocale),
        ].compactMap { $0 }
        try await database.apps.create(app, event: record(.appCreated, by: key, app: app.bundleID, changes: changes))
        try await refreshIdentifiers(app.bundleID)
        return .created(.init(body: .json(.init(app))))
    }

    func listApps(_ input: Operations.ListApps.Input) async throws -> Operations.ListApps.Output {
        let key = try Access.require(.readCatalog)
        let limit = try PageCursor.limit(input.query.limit)
        let fetched = try await database.apps.list(after: try PageCursor.decode(input.query.cursor), limit: limit + 1,
                                                   visible: key.apps)
        let (apps, next) = PageCursor.page(fetched, limit: limit, key: \.bundleID)
        return .ok(.init(body: .json(.init(items: apps.map(Components.Schemas.App.init), nextCursor: next))))
    }

    func getApp(_ input: Operations.GetApp.Input) async throws -> Operations.GetApp.Output {
        let key = try Access.require(.readCatalog)
        return .ok(.init(body: .json(.init(try await visibleApp(input.path.bundleId, for: key)))))
    }

    func updateApp(_ input: Operations.UpdateApp.Input) async throws -> Operations.UpdateApp.Output {
        let key = try Access.require(.manageApps)
        let app = try await visibleApp(input.path.bundleId, for: key)
        guard case .json(let body) = input.body else { throw Problem(status: .unsupportedMediaType) }
        let edit = AppEdit(name: body.name, newsstand: body.newsstand, primaryLocale: body.primaryLocale)
        var (edited, changes) = try edit.applied(to: app,
                                                 hasFreeSubscription: try await database.apps.hasFreeSubscription(app.bundleID))
        guard !changes.isEmpty else { return .ok(.init(body: .json(.init(app)))) }
        edited.updatedAt = now()
        try await database.apps.update(edited, event: record(.appEdited, by: key, app: app.bundleID, changes: changes))
        return .ok(.init(body: .json(.init(edited))))
    }
}
