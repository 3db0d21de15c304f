import Foundation

/// The types of the IAP Catalog API, generated from `openapi.yaml` (the API's source of truth) by
/// swift-openapi-generator. The server and the CLI's client are generated from the same document in their
/// own targets, importing these types, so the two cannot drift apart.
public enum CatalogAPIDocument {
    /// The OpenAPI document as built into this binary, served at `GET /openapi.yaml`.
    public static let yaml: Data? = Bundle.module.url(forResource: "openapi", withExtension: "yaml")
        .flatMap { try? Data(contentsOf: $0) }
}
