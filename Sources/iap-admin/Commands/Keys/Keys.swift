import ArgumentParser
import CatalogAPI
import Foundation

/// `keys`: API keys, for admins.
struct Keys: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create, list and revoke API keys (admin keys only).",
        discussion: """
            Roles: admin (everything), developer (products, groups, developer actions), reviewer (review \
            actions), auditor (read-only, history). A key may be limited to some apps. Tokens are shown once, \
            when the key is made, and stored only as hashes.

            Example:
              admin-cli keys create --role developer --name "Alice (PM)" --app com.example.game
              admin-cli keys list
            """,
        subcommands: [Create.self, List.self, Revoke.self])
}

extension Keys {
    /// `keys create`.
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create",
            abstract: "Create an API key and print its token, once.",
            discussion: """
                The token is printed this once; store it now (a password manager, or `admin-cli login` on the \
                machine that will use it). With --quiet only the token is printed, for scripts.

                Examples:
                  admin-cli keys create --role reviewer --name "App Review relay"
                  IAP_KEY=$(admin-cli keys create --role auditor --name audit --app com.example.game --quiet)
                """)

        @Option(help: "The key's role.")
        var role: Components.Schemas.Role

        @Option(help: "Whose key it is, 1-100 characters.")
        var name: String

        @Option(name: .customLong("app"), help: ArgumentHelp("Limit the key to this app (repeat for more; default: every app).", valueName: "bundle-id"))
        var apps: [String] = []

        @Option(help: ArgumentHelp("When the key stops working: RFC 3339 (2027-01-31T12:00:00Z) or a day (2027-01-31).", valueName: "time"))
        var expires: TimeArgument?

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let session = try Session(global)
            let body = Components.Schemas.KeyCreate(role: role, name: name, apps: apps.isEmpty ? nil : apps,
                                                    expiresAt: expires?.date)
            let key = try await session.answer({ try await $0.createKey(body: .json(body)) }) { try $0.created.body.json }
            let console = session.console
            await session.show(identifiers: [key.token]) {
                var details = Details()
                details.add("Id", key.id)
                details.add("Name", key.name)
                details.add("Role", key.role.rawValue)
                details.add("Apps", Display.apps(key.apps))
                details.add("Expires", key.expiresAt.map(Display.time) ?? "never")
                details.add("Token", console.paint(key.token, .bold))
                details.print(on: console)
                console.note(console.paintError("The token is shown this once: store it now.", .yellow))
            }
        }
    }

    /// `keys list`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List API keys, newest first (never their tokens).",
            discussion: """
                Example:
                  admin-cli keys list
                """)

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let session = try Session(global)
            let keys = try await session.answer({ try await $0.listKeys() }) { try $0.ok.body.json.items }
            let console = session.console
            await session.show(identifiers: keys.map(\.id)) {
                var table = Table("ID", "NAME", "ROLE", "APPS", "CREATED", "STATUS")
                for key in keys {
                    table.add(Table.Cell(key.id), Table.Cell(key.name), Table.Cell(key.role.rawValue),
                              Table.Cell(Display.apps(key.apps)), Table.Cell(Display.time(key.createdAt)),
                              Keys.status(of: key))
                }
                table.print(on: console)
            }
        }
    }
}

extension Keys {
    /// Active, revoked or expired, as of now.
    static func status(of key: Components.Schemas.Key, now: Date = Date()) -> Table.Cell {
        if let revoked = key.revokedAt { return Table.Cell("revoked \(Display.time(revoked))", .red) }
        if let expires = key.expiresAt {
            return expires <= now ? Table.Cell("expired \(Display.time(expires))", .red)
                                  : Table.Cell("active until \(Display.time(expires))", .green)
        }
        return Table.Cell("active", .green)
    }
}

extension Keys {
    /// `keys revoke`.
    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "revoke",
            abstract: "Revoke an API key: its next request is refused.",
            discussion: """
                Asks for confirmation on a terminal; --yes skips the question (and is needed when not on a terminal).

                Example:
                  admin-cli keys revoke 3f1c9a52-7a4e-4d2b-9a8e-1d2c3b4a5f60 --yes
                """)

        @Argument(help: "The key's id (see keys list).")
        var id: String

        @Flag(name: [.short, .long], help: "Do not ask for confirmation.")
        var yes = false

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let session = try Session(global)
            try Prompt.confirm("Revoke key \(id)? Whoever uses it loses access at once.", assumeYes: yes, console: session.console)
            try await session.answer({ try await $0.revokeKey(path: .init(keyId: id)) }) { _ = try $0.noContent }
            await session.show(json: .nothing, identifiers: [id]) { session.console.print("Revoked key \(id).") }
        }
    }
}
