import ArgumentParser
import CatalogAPI

/// `apps`: the apps whose products the catalog holds.
struct Apps: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create, list, show and update apps (creating and updating need an admin key).",
        discussion: """
            An app is its bundle id, a name, its primary locale (the localization approval requires) and \
            whether it is a Newsstand app (which allows one free subscription).

            Example:
              admin-cli apps create com.example.game --name "Example Game" --primary-locale en-US
              admin-cli apps list
            """,
        subcommands: [Create.self, List.self, Show.self, Update.self])

    /// How an app is printed after it was read or written.
    static func show(_ app: Components.Schemas.App, verb: String?, session: Session) async {
        await session.show(identifiers: [app.bundleId]) {
            let console = session.console
            if let verb { console.print("\(verb) \(console.paint(app.bundleId, .bold)).") }
            var details = Details()
            details.add("Bundle id", app.bundleId)
            details.add("Name", app.name)
            details.add("Primary locale", app.primaryLocale)
            details.add("Newsstand", Display.yesNo(app.newsstand))
            details.add("Created", Display.time(app.createdAt))
            details.add("Updated", Display.time(app.updatedAt))
            details.print(on: console)
        }
    }
}

extension Apps {
    /// `apps create`.
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create",
            abstract: "Create an app.",
            discussion: """
                Example:
                  admin-cli apps create com.example.news --name "Example News" --newsstand --primary-locale en-GB
                """)

        @Argument(help: "The app's bundle id, e.g. com.example.game.")
        var bundleID: String

        @Option(help: "The app's name, 1-64 characters.")
        var name: String

        @Option(name: .customLong("primary-locale"), help: ArgumentHelp("The locale every product needs a localization in (default: en-US).", valueName: "locale"))
        var primaryLocale: String?

        @Flag(help: "A Newsstand app, which may have one free subscription.")
        var newsstand = false

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let session = try Session(global)
            let body = Components.Schemas.AppCreate(bundleId: bundleID, name: name, newsstand: newsstand ? true : nil,
                                                    primaryLocale: primaryLocale)
            let app = try await session.answer({ try await $0.createApp(body: .json(body)) }) { try $0.created.body.json }
            await Apps.show(app, verb: "Created", session: session)
        }
    }

    /// `apps list`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the apps your key may see, by bundle id.",
            discussion: """
                Example:
                  admin-cli apps list --all
                """)

        @OptionGroup var pages: PageOptions

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let session = try Session(global)
            let (apps, more) = try await pages.collect(session) { cursor, size in
                let page = try await session.answer({ try await $0.listApps(query: .init(cursor: cursor, limit: size)) }) {
                    try $0.ok.body.json
                }
                return (page.items, page.nextCursor)
            }
            let console = session.console
            await session.show(json: .nothing, identifiers: apps.map(\.bundleId)) {
                guard !apps.isEmpty else { return console.note("No apps yet: create one with admin-cli apps create.") }
                var table = Table("BUNDLE ID", "NAME", "PRIMARY LOCALE", "NEWSSTAND")
                for app in apps {
                    table.add(Table.Cell(app.bundleId), Table.Cell(app.name), Table.Cell(app.primaryLocale),
                              Table.Cell(Display.yesNo(app.newsstand)))
                }
                table.print(on: console)
                pages.noteMore(more, shown: apps.count, noun: "apps", session: session)
            }
        }
    }

    /// `apps show`.
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show an app.",
            discussion: """
                Example:
                  admin-cli apps show com.example.game
                """)

        @Argument(help: "The app's bundle id (default: $IAP_APP or the profile's app).")
        var bundleID: String?

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let session = try Session(global)
            await Apps.show(try await session.fetchApp(try session.app(bundleID)), verb: nil, session: session)
        }
    }

    /// `apps update`.
    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "update",
            abstract: "Change an app's name, primary locale or Newsstand flag.",
            discussion: """
                Newsstand cannot be turned off while the app has a free subscription (exit 67).

                Example:
                  admin-cli apps update com.example.game --name "Example Game II" --primary-locale en-GB
                """)

        @Argument(help: "The app's bundle id (default: $IAP_APP or the profile's app).")
        var bundleID: String?

        @Option(help: "The new name.")
        var name: String?

        @Option(name: .customLong("primary-locale"), help: ArgumentHelp("The new primary locale.", valueName: "locale"))
        var primaryLocale: String?

        @Flag(inversion: .prefixedNo, help: "Whether it is a Newsstand app.")
        var newsstand: Bool?

        @OptionGroup var global: GlobalOptions

        func validate() throws {
            if name == nil, primaryLocale == nil, newsstand == nil {
                throw ValidationError("nothing to change: give --name, --primary-locale or --[no-]newsstand")
            }
        }

        func run() async throws {
            let session = try Session(global)
            let bundleID = try session.app(bundleID)
            let body = Components.Schemas.AppUpdate(name: name, newsstand: newsstand, primaryLocale: primaryLocale)
            let app = try await session.answer({ try await $0.updateApp(path: .init(bundleId: bundleID), body: .json(body)) }) {
                try $0.ok.body.json
            }
            await Apps.show(app, verb: "Updated", session: session)
        }
    }
}
