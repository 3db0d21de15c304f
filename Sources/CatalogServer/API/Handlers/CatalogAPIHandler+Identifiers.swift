import CatalogAPI
import CatalogCore

extension CatalogAPIHandler {
    /// The public list of identifiers on sale, for client apps; cacheable with a strong ETag. Plain requests
    /// are answered before routing by ``IdentifierFastPath`` from the same snapshots; this answers the rest
    /// (a percent-encoded path, for one), identically.
    func getProductIdentifiers(_ input: Operations.GetProductIdentifiers.Input) async throws
        -> Operations.GetProductIdentifiers.Output
    {
        let type: PurchaseType? = input.query._type.map { EnumMapping.convert($0) }
        guard let snapshot = try await identifiers(input.path.bundleId, type: type) else {
            return .notFound(.init(body: .json(.init(error: .appNotFound))))
        }
        // The header is declared as a JSON string: the generated layer adds the quotes.
        let eTag = String(snapshot.eTag.dropFirst().dropLast())
        if let ifNoneMatch = input.headers.ifNoneMatch, IdentifierRoute.matches(ifNoneMatch, snapshot.eTag) {
            return .notModified(.init(headers: .init(eTag: eTag)))
        }
        return .ok(.init(headers: .init(eTag: eTag, cacheControl: IdentifierRoute.cacheControl),
                         body: .json(.init(bundleId: input.path.bundleId, productIdentifiers: snapshot.identifiers))))
    }

    /// The snapshot, or, before the first load, the same answer built from the database.
    private func identifiers(_ bundleID: String, type: PurchaseType?) async throws -> IdentifierSnapshots.Snapshot? {
        if snapshots.isLoaded { return snapshots.answer(bundleID[...], type: type) }
        guard Identifiers.bundleIDProblems(bundleID).isEmpty, let products = try await database.identifiers.app(bundleID)
        else { return nil }
        let scratch = IdentifierSnapshots()
        scratch.replace(bundleID, with: products)
        return scratch.answer(bundleID[...], type: type)
    }
}
