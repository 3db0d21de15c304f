import CatalogAPI
import CatalogStore

extension CatalogAPIHandler {
    func getLiveness(_ input: Operations.GetLiveness.Input) async throws -> Operations.GetLiveness.Output {
        .ok(.init(body: .json(.init(status: .ok))))
    }

    /// Ready when the database answers and has every migration this build knows.
    func getReadiness(_ input: Operations.GetReadiness.Input) async throws -> Operations.GetReadiness.Output {
        let version = try await database.schemaVersion()
        guard version >= migrator.latestVersion else {
            throw Problem.unavailable("the database is at migration \(version), this server needs \(migrator.latestVersion)")
        }
        return .ok(.init(body: .json(.init(status: .ok, schemaVersion: version))))
    }
}
