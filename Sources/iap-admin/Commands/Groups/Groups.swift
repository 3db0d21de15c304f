import ArgumentParser
import CatalogAPI

/// `groups`: subscription groups, which hold an app's auto-renewable subscriptions by level.
struct Groups: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create, list, show and update subscription groups.",
        discussion: """
            Every auto-renewable subscription belongs to one group of its app, at a level (1 the highest) \
            unique in the group. Commands take a group by id or by reference name.

            Example:
              admin-cli groups create --app com.example.game --name "Pro" --locale en-US --display-name "Pro Access"
              admin-cli groups list --app com.example.game
            """,
        subcommands: [Create.self, List.self, Show.self, Update.self])

    static func show(_ group: Components.Schemas.SubscriptionGroup, verb: String?, session: Session) async {
        await session.show(identifiers: [group.id]) {
            let console = session.console
            if let verb { console.print("\(verb) group \(console.paint(group.referenceName, .bold)).") }
            var details = Details()
            details.add("Id", group.id)
            details.add("Reference name", group.referenceName)
            details.add("Localizations", group.localizations.isEmpty ? "-"
                : group.localizations.map { "\($0.locale): \($0.name)" }.joined(separator: "; "))
            details.add("Created", Display.time(group.createdAt))
            details.add("Updated", Display.time(group.updatedAt))
            details.print(on: console)
        }
    }
}

/// The localization options of groups: one locale's display name at a time.
struct GroupLocalizationOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The locale --display-name is for (default: the app's primary locale).", valueName: "locale"))
    var locale: String?

    @Option(name: .customLong("display-name"), help: ArgumentHelp("The group's name shown to subscribers, 1-75 characters.", valueName: "text"))
    var displayName: String?

    func validate() throws {
        if locale != nil, displayName == nil { throw ValidationError("--locale goes with --display-name") }
    }

    /// `current` with the named locale's name set (added or replaced); nil when no name is given.
    func merged(into current: [Components.Schemas.GroupLocalization], app: String,
                session: Session) async throws -> [Components.Schemas.GroupLocalization]? {
        guard let displayName else { return nil }
        var locale = self.locale ?? ""
        if self.locale == nil { locale = try await session.fetchApp(app).primaryLocale }
        var result = current
        if let index = result.firstIndex(where: { $0.locale == locale }) {
            result[index].name = displayName
        } else {
            result.append(.init(locale: locale, name: displayName))
        }
        return result
    }
}

extension Groups {
    /// `groups create`.
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create",
            abstract: "Create a subscription group.",
            discussion: """
                Example:
                  admin-cli groups create --app com.example.game --name "Pro" --display-name "Pro Access"
                """)

        @Option(help: "The app's bundle id (default: $IAP_APP or the profile's app).")
        var app: String?

        @Option(name: .customLong("name"), help: "The group's reference name: internal, 1-64 characters.")
        var referenceName: String

        @OptionGroup var localization: GroupLocalizationOptions

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let session = try Session(global)
            let app = try session.app(app)
            let body = Components.Schemas.SubscriptionGroupCreate(
                referenceName: referenceName, localizations: try await localization.merged(into: [], app: app, session: session))
            let group = try await session.answer({
                try await $0.createSubscriptionGroup(path: .init(bundleId: app), body: .json(body))
            }) { try $0.created.body.json }
            await Groups.show(group, verb: "Created", session: session)
        }
    }

    /// `groups list`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List an app's subscription groups, by reference name.",
            discussion: """
                Example:
                  admin-cli groups list --app com.example.game
                """)

        @Option(help: "The app's bundle id (default: $IAP_APP or the profile's app).")
        var app: String?

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let session = try Session(global)
            let app = try session.app(app)
            let groups = try await session.fetchGroups(app: app)
            let console = session.console
            await session.show(identifiers: groups.map(\.id)) {
                guard !groups.isEmpty else { return console.note("No subscription groups in \(app).") }
                var table = Table("ID", "REFERENCE NAME", "LOCALIZATIONS")
                for group in groups {
                    table.add(Table.Cell(group.id), Table.Cell(group.referenceName),
                              Table.Cell(group.localizations.map(\.locale).joined(separator: ", ")))
                }
                table.print(on: console)
            }
        }
    }

    /// `groups show`.
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show a subscription group.",
            discussion: """
                Example:
                  admin-cli groups show Pro --app com.example.game
                """)

        @Argument(help: "The group's id or reference name.")
        var group: String

        @Option(help: "The app's bundle id (default: $IAP_APP or the profile's app).")
        var app: String?

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let session = try Session(global)
            let app = try session.app(app)
            let id = try await session.groupID(group, app: app)
            let group = try await session.answer({
                try await $0.getSubscriptionGroup(path: .init(bundleId: app, groupId: id))
            }) { try $0.ok.body.json }
            await Groups.show(group, verb: nil, session: session)
        }
    }

    /// `groups update`.
    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "update",
            abstract: "Rename a subscription group or change its localized names.",
            discussion: """
                Example:
                  admin-cli groups update Pro --app com.example.game --locale fr-FR --display-name "Accès Pro"
                """)

        @Argument(help: "The group's id or reference name.")
        var group: String

        @Option(help: "The app's bundle id (default: $IAP_APP or the profile's app).")
        var app: String?

        @Option(name: .customLong("name"), help: "The new reference name.")
        var referenceName: String?

        @OptionGroup var localization: GroupLocalizationOptions

        @Option(name: .customLong("remove-locale"), help: ArgumentHelp("Remove this locale's name (repeat for more).", valueName: "locale"))
        var removedLocales: [String] = []

        @OptionGroup var global: GlobalOptions

        func validate() throws {
            if referenceName == nil, localization.displayName == nil, removedLocales.isEmpty {
                throw ValidationError("nothing to change: give --name, --display-name or --remove-locale")
            }
        }

        func run() async throws {
            let session = try Session(global)
            let app = try session.app(app)
            let id = try await session.groupID(group, app: app)
            var localizations: [Components.Schemas.GroupLocalization]?
            if localization.displayName != nil || !removedLocales.isEmpty {
                guard let current = try await session.fetchGroups(app: app).first(where: { $0.id == id }) else {
                    throw CommandFailure(.notFound, "no subscription group \(group) in \(app)")
                }
                var merged = try await localization.merged(into: current.localizations, app: app, session: session)
                    ?? current.localizations
                for locale in removedLocales { merged.removeAll { $0.locale == locale } }
                localizations = merged
            }
            let body = Components.Schemas.SubscriptionGroupUpdate(referenceName: referenceName, localizations: localizations)
            let group = try await session.answer({
                try await $0.updateSubscriptionGroup(path: .init(bundleId: app, groupId: id), body: .json(body))
            }) { try $0.ok.body.json }
            await Groups.show(group, verb: "Updated", session: session)
        }
    }
}
