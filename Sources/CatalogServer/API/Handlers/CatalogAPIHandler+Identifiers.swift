import CatalogAPI
import CatalogCore
import CatalogStore

extension CatalogAPIHandler {
    /// The public list of identifiers on sale, for client apps; cacheable with a strong ETag. Plain requests
    /// are answered before routing by ``IdentifierFastPath`` from the same snapshots; this answers the rest
    /// (a percent-encoded path, for one), identically.
    func getProductIdentifiers(_ input: Operations.GetProductIdentifiers.Input) async throws
        -> Operations.GetProductIdentifiers.Output
    {
        let type: PurchaseType? = input.query._type.map { EnumMapping.convert($0) }
        let bundleID = input.path.bundleId
        let answer = IdentifierAnswer(try await snapshots(for: bundleID), bundleID: bundleID[...], type: type,
                                      ifNoneMatch: input.headers.ifNoneMatch)
        // The header is declared as a JSON string: the generated layer adds the quotes.
        let eTag = answer.eTag.map { String($0.dropFirst().dropLast()) }
        switch answer.status {
        case .notFound:
            return .notFound(.init(body: .json(.init(error: .appNotFound))))
        case .notModified:
            return .notModified(.init(headers: .init(eTag: eTag, cacheControl: IdentifierRoute.cacheControl)))
        case .ok:
            return .ok(.init(headers: .init(eTag: eTag, cacheControl: IdentifierRoute.cacheControl),
                             body: .json(.init(bundleId: bundleID, productIdentifiers: answer.identifiers))))
        }
    }

    /// The snapshots, or, before the first load, the app's alone, built from the database.
    private func snapshots(for bundleID: String) async throws -> IdentifierSnapshots {
        if snapshots.isLoaded { return snapshots }
        let scratch = IdentifierSnapshots()
        if Identifiers.bundleIDProblems(bundleID).isEmpty, let products = try await database.identifiers.app(bundleID) {
            scratch.replace(bundleID, with: products)
        }
        return scratch
    }
}
