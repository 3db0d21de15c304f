import CatalogAPI
import CatalogCore
import CatalogStore

extension CatalogAPIHandler {
    /// One product's events, oldest first; a deleted product's events stay readable.
    func getProductHistory(_ input: Operations.GetProductHistory.Input) async throws
        -> Operations.GetProductHistory.Output
    {
        let key = try Access.require(.readCatalog)
        let app = try await visibleApp(input.path.bundleId, for: key)
        let limit = try PageCursor.limit(input.query.limit)
        let after = try PageCursor.decode(input.query.cursor) { Int64($0) }
        guard Identifiers.productIDProblems(input.path.productId).isEmpty else {
            throw CatalogError.notFound("no product \(input.path.productId) in \(app.bundleID), now or ever")
        }
        let fetched = try await database.history.forProduct(app.bundleID, input.path.productId, after: after,
                                                            limit: limit + 1)
        if fetched.isEmpty && after == nil {
            throw CatalogError.notFound("no product \(input.path.productId) in \(app.bundleID), now or ever")
        }
        let (events, next) = PageCursor.page(fetched, limit: limit, key: { String($0.sequence) })
        return .ok(.init(body: .json(.init(items: try events.map(Components.Schemas.HistoryEvent.init), nextCursor: next))))
    }
}
