import CatalogAPI
import CatalogCore
import CatalogStore
import HTTPTypes

extension CatalogAPIHandler {
    /// One action, as a single compare-and-set on the version read plus its history event, in one
    /// statement: of racing actions exactly one wins, and the others are told what is allowed now.
    func performAction(_ input: Operations.PerformAction.Input) async throws -> Operations.PerformAction.Output {
        guard case .json(let body) = input.body else { throw Problem(status: .unsupportedMediaType) }
        let action: ReviewAction = EnumMapping.convert(body.action)
        do {
            // Its read and its write on one connection (ConnectionScope).
            let output = try await database.withOneConnection { try await perform(action, input, body) }
            metrics.action(action, outcome: "applied")
            return output
        } catch {
            metrics.action(action, outcome: Problem(error: error).kind)
            throw error
        }
    }

    private func perform(_ action: ReviewAction, _ input: Operations.PerformAction.Input,
                         _ body: Components.Schemas.ActionRequest) async throws -> Operations.PerformAction.Output {
        let key = try Access.require(.readCatalog)
        let (app, product) = try await visibleProduct(input.path.bundleId, input.path.productId, for: key)
        try EntityTag.check(input.headers.ifMatch, against: product)
        let next = try product.performing(action, by: key.role, reason: body.reason, in: app, at: now())
        let saved = try await database.products.save(next, replacing: product, cause: action.rawValue, event: record(
            .action, by: key, app: app.bundleID, productID: next.productID, productVersion: next.version,
            action: action, from: product.state, to: next.state, reason: body.reason, changes: next.changes(from: product)))
        guard saved else {
            // Someone else changed the product since it was read: tell the loser what holds now.
            let current = try await existingProduct(app, input.path.productId)
            if input.headers.ifMatch != nil { throw CatalogError.preconditionFailed(current: current.version) }
            _ = try current.performing(action, by: key.role, reason: body.reason, in: app, at: now())
            throw CatalogError.conflict("the product changed while \(action.rawValue) was being applied; read it again",
                                        state: current.state)
        }
        if next.onSale != product.onSale { try await refreshIdentifiers(app.bundleID) }
        return .ok(.init(headers: .init(eTag: EntityTag.of(next)), body: .json(.init(next, app: app, role: key.role))))
    }
}
