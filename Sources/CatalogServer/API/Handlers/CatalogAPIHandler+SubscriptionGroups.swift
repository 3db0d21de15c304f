import CatalogAPI
import CatalogCore
import CatalogStore
import Foundation
import HTTPTypes

extension CatalogAPIHandler {
    func createSubscriptionGroup(_ input: Operations.CreateSubscriptionGroup.Input) async throws
        -> Operations.CreateSubscriptionGroup.Output
    {
        let key = try Access.require(.editCatalog)
        let app = try await visibleApp(input.path.bundleId, for: key)
        guard case .json(let body) = input.body else { throw Problem(status: .unsupportedMediaType) }
        let time = now()
        let group = try SubscriptionGroup(
            bundleID: app.bundleID, referenceName: body.referenceName,
            localizations: (body.localizations ?? []).map { .init(locale: $0.locale, name: $0.name) },
            createdAt: time, updatedAt: time).validated()
        try await database.subscriptionGroups.create(group, event: record(.groupCreated, by: key, app: app.bundleID,
                                                                          changes: group.creationChanges))
        return .created(.init(body: .json(.init(group))))
    }

    func listSubscriptionGroups(_ input: Operations.ListSubscriptionGroups.Input) async throws
        -> Operations.ListSubscriptionGroups.Output
    {
        let key = try Access.require(.readCatalog)
        let app = try await visibleApp(input.path.bundleId, for: key)
        let groups = try await database.subscriptionGroups.list(app.bundleID)
        return .ok(.init(body: .json(.init(items: groups.map(Components.Schemas.SubscriptionGroup.init)))))
    }

    func getSubscriptionGroup(_ input: Operations.GetSubscriptionGroup.Input) async throws
        -> Operations.GetSubscriptionGroup.Output
    {
        let key = try Access.require(.readCatalog)
        let group = try await visibleGroup(input.path.bundleId, input.path.groupId, for: key)
        return .ok(.init(body: .json(.init(group))))
    }

    func updateSubscriptionGroup(_ input: Operations.UpdateSubscriptionGroup.Input) async throws
        -> Operations.UpdateSubscriptionGroup.Output
    {
        let key = try Access.require(.editCatalog)
        let group = try await visibleGroup(input.path.bundleId, input.path.groupId, for: key)
        guard case .json(let body) = input.body else { throw Problem(status: .unsupportedMediaType) }
        var (edited, changes) = try group.editing(
            referenceName: body.referenceName,
            localizations: body.localizations?.map { .init(locale: $0.locale, name: $0.name) })
        guard !changes.isEmpty else { return .ok(.init(body: .json(.init(group)))) }
        edited.updatedAt = now()
        try await database.subscriptionGroups.update(edited, event: record(.groupEdited, by: key, app: group.bundleID,
                                                                           changes: changes))
        return .ok(.init(body: .json(.init(edited))))
    }

    private func visibleGroup(_ bundleID: String, _ groupID: String, for key: APIKey) async throws -> SubscriptionGroup {
        let app = try await visibleApp(bundleID, for: key)
        guard let id = UUID(text: groupID), let group = try await database.subscriptionGroups.find(app.bundleID, id: id)
        else { throw CatalogError.notFound("no subscription group \(groupID) in \(bundleID)") }
        return group
    }
}
