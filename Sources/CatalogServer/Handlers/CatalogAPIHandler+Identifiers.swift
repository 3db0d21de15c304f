import CatalogAPI
import CatalogCore
import Crypto
import Foundation

extension CatalogAPIHandler {
    /// The public list of identifiers on sale, for client apps; cacheable with a strong ETag.
    func getProductIdentifiers(_ input: Operations.GetProductIdentifiers.Input) async throws
        -> Operations.GetProductIdentifiers.Output
    {
        let type: PurchaseType? = input.query._type.map { EnumMapping.convert($0) }
        guard Identifiers.bundleIDProblems(input.path.bundleId).isEmpty,
              let identifiers = try await database.products.identifiersOnSale(input.path.bundleId, type: type)
        else {
            return .notFound(.init(body: .json(.init(error: .appNotFound))))
        }
        let digest = SHA256.hash(data: Data(([input.path.bundleId] + identifiers).joined(separator: "\n").utf8))
        let eTag = digest.prefix(16).map { String(format: "%02x", $0) }.joined()
        if let ifNoneMatch = input.headers.ifNoneMatch,
           ifNoneMatch.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == "\"\(eTag)\"" }) {
            return .notModified(.init(headers: .init(eTag: eTag)))
        }
        return .ok(.init(headers: .init(eTag: eTag, cacheControl: "no-cache"),
                         body: .json(.init(bundleId: input.path.bundleId, productIdentifiers: identifiers))))
    }
}
