import CatalogAPI
import CatalogStore

extension CatalogAPIHandler {
    func getLiveness(_ input: Operations.GetLiveness.Input) async throws -> Operations.GetLiveness.Output {
        .ok(.init(body: .json(.init(status: .ok))))
    }

    /// Ready when the database answers and has every migration this build knows: each one, not only the newest,
    /// since a database missing an earlier one (restored from a partial dump, a row deleted by hand) lacks its
    /// tables or functions all the same. A migration newer than this build's (another server migrated first, in a
    /// rolling deploy) does not make it unready.
    func getReadiness(_ input: Operations.GetReadiness.Input) async throws -> Operations.GetReadiness.Output {
        let applied = try await database.appliedMigrations()
        let missing = migrator.migrations.map(\.version).filter { !applied.contains($0) }
        guard missing.isEmpty else {
            let names = missing.prefix(5).map(String.init).joined(separator: ", ") + (missing.count > 5 ? ", …" : "")
            throw Problem.unavailable(
                "the database lacks \(missing.count) of this server's \(migrator.migrations.count) migrations (\(names))")
        }
        return .ok(.init(body: .json(.init(status: .ok, schemaVersion: applied.max() ?? 0))))
    }
}
