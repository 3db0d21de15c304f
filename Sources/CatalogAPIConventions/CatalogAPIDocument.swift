import Foundation

/// The OpenAPI document of the IAP Catalog API (`Sources/CatalogAPI/openapi.yaml`, the API's source of truth,
/// from which CatalogAPI, CatalogAPIServer and CatalogClient are generated).
public enum CatalogAPIDocument {
    /// The document as built into this binary (embedded in the code, so that no resource bundle has to travel
    /// with the executable), served at `GET /openapi.yaml`.
    public static let yaml = Data(PackageResources.openapi_yaml)
}
