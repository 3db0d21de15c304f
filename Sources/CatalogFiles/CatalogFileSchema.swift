import Foundation

/// The catalog file's JSON Schema (draft 2020-12), `catalog-file.schema.json` beside this file: the API serves it
/// (`GET /v1/schemas/catalog-file.json`) and the files `pull` writes point editors at it.
public enum CatalogFileSchema {
    /// Where the API serves it, relative to the service's URL.
    public static let path = "/v1/schemas/catalog-file.json"

    /// The schema's bytes, as in the repository.
    public static let data: Data = {
        guard let url = Bundle.module.url(forResource: "catalog-file.schema", withExtension: "json"),
              let data = try? Data(contentsOf: url)
        else {
            // The file is part of the target's resources; a build without it is broken, not a run-time condition.
            preconditionFailure("catalog-file.schema.json is missing from the CatalogFiles bundle")
        }
        return data
    }()

    /// The schema's address on the service at `serviceURL` (`https://catalog.example.com`).
    public static func url(on serviceURL: String) -> String {
        (serviceURL.hasSuffix("/") ? String(serviceURL.dropLast()) : serviceURL) + path
    }
}
