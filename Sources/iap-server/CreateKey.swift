import ArgumentParser
import CatalogCore
import CatalogStore
import Foundation
import Logging

/// Makes an API key by talking to the database directly: how the first admin key comes to be, with no
/// default password anywhere. Prints only the token, so that scripts can capture it.
struct CreateKey: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create-key",
        abstract: "Create an API key directly in the database and print its token.",
        discussion: """
            The token is printed once, on stdout, and stored only as a hash. Example:
              export IAP_KEY=$(iap-server create-key --role admin --name "first admin")
            """)

    @OptionGroup var database: DatabaseOptions

    @Option(help: "The key's role: admin, developer, reviewer, auditor or client (a client key needs exactly one --app).")
    var role: String

    @Option(help: "A name that says whose key it is.")
    var name: String

    @Option(name: .customLong("app"), help: "Limit the key to this app (repeat for several); default: every app.")
    var apps: [String] = []

    func validate() throws {
        guard KeyRole(rawValue: role) != nil else {
            throw ValidationError("unknown role \(role); use admin, developer, reviewer, auditor or client")
        }
        do {
            try APIKey.validate(name: name, apps: apps.isEmpty ? nil : apps, role: KeyRole(rawValue: role)!)
        } catch {
            throw ValidationError("\(error)")
        }
    }

    func run() async throws {
        let logger = try database.logger()
        let token = KeyToken.generate()
        let key = APIKey(id: UUID(), name: name, role: KeyRole(rawValue: role)!, apps: apps.isEmpty ? nil : Set(apps),
                         createdAt: Date(), expiresAt: nil, revokedAt: nil)
        let migrator = Migrator(migrations: try Migrator.bundled(), logger: logger)
        let missing = try await withDatabase(database, logger: logger) { client in
            try await migrator.migrate(client)
            let database = Database(client: client, logger: logger)
            var missing: [String] = []
            for app in apps where try await database.apps.find(app) == nil { missing.append(app) }
            guard missing.isEmpty else { return missing }
            let record = HistoryRecord(
                kind: .keyCreated, bundleID: nil, actor: Actor(keyID: nil, name: "iap-server create-key", role: .admin),
                changes: key.historyFields)
            try await database.keys.create(key, token: token, event: record)
            return missing
        }
        guard missing.isEmpty else {
            throw ValidationError("no such app: \(missing.joined(separator: ", "))")
        }
        print(token.text)
    }
}
