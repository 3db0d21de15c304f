import CatalogAPI
import CatalogCore
import CatalogStore
import HTTPTypes
import PurchaseCore

extension CatalogAPIHandler {
    func getStoreSettings(_ input: Operations.GetStoreSettings.Input) async throws -> Operations.GetStoreSettings.Output {
        let key = try Access.require(.manageStoreSettings)
        let bundleID = input.path.bundleId
        guard mayLookUp(app: bundleID, for: key), let settings = try await database.storeSettings.find(bundleID) else {
            throw Self.noApp(bundleID)
        }
        return .ok(.init(body: .json(.init(settings))))
    }

    /// Replaces the app's settings; the history event names the shared secret only as set, changed or removed.
    /// With `If-Match`, only the version it names is replaced: a change saved meanwhile is found stale on the
    /// next round and answered 412.
    func putStoreSettings(_ input: Operations.PutStoreSettings.Input) async throws -> Operations.PutStoreSettings.Output {
        let key = try Access.require(.manageStoreSettings)
        let bundleID = input.path.bundleId
        guard mayLookUp(app: bundleID, for: key) else { throw Self.noApp(bundleID) }
        guard case .json(let body) = input.body else { throw Problem(status: .unsupportedMediaType) }
        let update = StoreSettingsUpdate(body)
        for _ in 0..<Self.editAttempts {
            guard let current = try await database.storeSettings.find(bundleID) else { throw Self.noApp(bundleID) }
            try EntityTag.check(input.headers.ifMatch, version: current.version)
            let next = try current.replaced(by: update)
            let changes = next.historyChanges(from: current)
            guard !changes.isEmpty else { return .ok(.init(body: .json(.init(current)))) }
            if let saved = try await database.storeSettings.save(
                next, in: bundleID, previousVersion: current.version,
                event: record(.storeSettingsChanged, by: key, app: bundleID, changes: changes)) {
                storeSettings.replace(bundleID, with: saved)
                return .ok(.init(body: .json(.init(saved))))
            }
        }
        throw CatalogError.conflict("the store settings changed meanwhile, again and again; read them and retry")
    }
}
