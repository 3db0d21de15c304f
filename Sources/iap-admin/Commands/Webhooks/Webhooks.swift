import ArgumentParser
import CatalogAPI
import Foundation

/// `webhooks`: endpoints that receive the catalog's events, for admins.
struct Webhooks: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create, list and delete webhook endpoints; see their deliveries, replay them (admin keys only).",
        discussion: """
            A webhook endpoint receives every event its filters select (apps, kinds), each at least once and in \
            order, signed as the Standard Webhooks specification says (docs/events.md shows the check). Failed \
            deliveries are retried for up to 3 days, then the endpoint is disabled with its reason; `redeliver` \
            replays from an event and resumes it. The signing secret is shown once, at creation.

            Example, review decisions of one app to a chat bridge:
              admin-cli webhooks create https://hooks.example.com/iap --app com.example.game --kind action
              admin-cli webhooks list
            """,
        subcommands: [Create.self, List.self, Delete.self, Deliveries.self, Redeliver.self])

    /// Active, failing (retrying an event) or disabled.
    static func state(of webhook: Components.Schemas.Webhook) -> Table.Cell {
        switch webhook.state {
        case .active: Table.Cell("active", .green)
        case .failing: Table.Cell("failing (\(webhook.failedAttempts) attempts)", .yellow)
        case .disabled: Table.Cell("disabled", .red)
        }
    }
}

extension Webhooks {
    /// `webhooks create`.
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create",
            abstract: "Create a webhook endpoint and print its signing secret, once.",
            discussion: """
                The URL must be https and resolve to public addresses (the operator may allow more: \
                docs/operations.md). The endpoint gets the events after its creation. The secret (whsec_…) is \
                printed this once: configure it in the receiver now. With --quiet only the secret is printed.

                Examples:
                  admin-cli webhooks create https://ci.example.com/hooks/iap --kind action
                  SECRET=$(admin-cli webhooks create https://hooks.example.com/in --app com.example.game --quiet)
                """)

        @Argument(help: "Where to deliver: https://host[:port][/path][?query].")
        var url: String

        @Option(name: .customLong("app"), help: ArgumentHelp("Only this app's events (repeat for more; default: every event).", valueName: "bundle-id"))
        var apps: [String] = []

        @Option(name: .customLong("kind"), help: ArgumentHelp("Only events of this kind (repeat for more; default: every kind).", valueName: "kind"))
        var kinds: [Components.Schemas.HistoryKind] = []

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let session = try Session(global)
            let body = Components.Schemas.WebhookCreate(url: url, apps: apps.isEmpty ? nil : apps,
                                                        kinds: kinds.isEmpty ? nil : kinds)
            let webhook = try await session.answer({ try await $0.createWebhook(body: .json(body)) }) { try $0.created.body.json }
            let console = session.console
            await session.show(identifiers: [webhook.secret]) {
                var details = Details()
                details.add("Id", webhook.id)
                details.add("URL", webhook.url)
                details.add("Apps", Display.apps(webhook.apps))
                details.add("Kinds", webhook.kinds.map { $0.map(\.rawValue).joined(separator: ", ") } ?? "every kind")
                details.add("Events after", String(webhook.deliveredThrough))
                details.add("Secret", console.paint(webhook.secret, .bold))
                details.print(on: console)
                console.note(console.paintError("The secret is shown this once: configure it in the receiver now.", .yellow))
            }
        }
    }

    /// `webhooks list`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List webhook endpoints and where their deliveries stand (never their secrets).",
            discussion: """
                DELIVERED is the sequence up to which every event has been delivered (or is not the endpoint's).

                Example:
                  admin-cli webhooks list
                """)

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let session = try Session(global)
            let webhooks = try await session.answer({ try await $0.listWebhooks() }) { try $0.ok.body.json.items }
            let console = session.console
            await session.show(identifiers: webhooks.map(\.id)) {
                guard !webhooks.isEmpty else { return console.note("No webhook endpoints.") }
                var table = Table("ID", "URL", "APPS", "KINDS", "DELIVERED", "STATE")
                for webhook in webhooks {
                    table.add(Table.Cell(webhook.id), Table.Cell(webhook.url), Table.Cell(Display.apps(webhook.apps)),
                              Table.Cell(webhook.kinds.map { $0.map(\.rawValue).joined(separator: ",") } ?? "all"),
                              Table.Cell(String(webhook.deliveredThrough)), Webhooks.state(of: webhook))
                }
                table.print(on: console)
                for webhook in webhooks {
                    if let reason = webhook.disabledReason { console.note("\(webhook.id): disabled: \(reason)") }
                }
            }
        }
    }

    /// `webhooks delete`.
    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: "Delete a webhook endpoint: its deliveries stop at once.",
            discussion: """
                Asks for confirmation on a terminal; --yes skips the question (and is needed when not on a terminal).

                Example:
                  admin-cli webhooks delete 3f1c9a52-7a4e-4d2b-9a8e-1d2c3b4a5f60 --yes
                """)

        @Argument(help: "The endpoint's id (see webhooks list).")
        var id: String

        @Flag(name: [.short, .long], help: "Do not ask for confirmation.")
        var yes = false

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let session = try Session(global)
            try Prompt.confirm("Delete webhook \(id)? Its receiver gets no more events.", assumeYes: yes, console: session.console)
            try await session.answer({ try await $0.deleteWebhook(path: .init(webhookId: id)) }) { _ = try $0.noContent }
            await session.show(json: .nothing, identifiers: [id]) { session.console.print("Deleted webhook \(id).") }
        }
    }

    /// `webhooks deliveries`.
    struct Deliveries: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "deliveries",
            abstract: "List an endpoint's delivery attempts, newest first.",
            discussion: """
                Each attempt: the event's sequence, its attempt number, when, how long it took, the status the \
                receiver answered and the outcome (delivered, failed, refused: the address was not one a webhook \
                may reach). Shows the first 50 unless --limit or --all say otherwise.

                Example:
                  admin-cli webhooks deliveries 3f1c9a52-7a4e-4d2b-9a8e-1d2c3b4a5f60 --limit 20
                """)

        @Argument(help: "The endpoint's id (see webhooks list).")
        var id: String

        @OptionGroup var pages: PageOptions

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let session = try Session(global)
            let (attempts, more) = try await pages.collect(session) { cursor, size in
                let page = try await session.answer({
                    try await $0.listWebhookDeliveries(path: .init(webhookId: id), query: .init(cursor: cursor, limit: size))
                }) { try $0.ok.body.json }
                return (page.items, page.nextCursor)
            }
            let console = session.console
            await session.show(json: .nothing, identifiers: attempts.map { String($0.sequence) }) {
                guard !attempts.isEmpty else { return console.note("No deliveries yet.") }
                var table = Table("SEQ", "ATTEMPT", "AT", "MS", "STATUS", "OUTCOME", "ERROR")
                for attempt in attempts {
                    let style: Style = attempt.outcome == .delivered ? .green : .red
                    table.add(Table.Cell(String(attempt.sequence)), Table.Cell(String(attempt.attempt)),
                              Table.Cell(Display.time(attempt.at)), Table.Cell(String(attempt.durationMs)),
                              Table.Cell(attempt.status.map(String.init) ?? "-"), Table.Cell(attempt.outcome.rawValue, style),
                              Table.Cell(attempt.error ?? ""))
                }
                table.print(on: console)
                pages.noteMore(more, shown: attempts.count, noun: "attempts", session: session)
            }
        }
    }

    /// `webhooks redeliver`.
    struct Redeliver: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "redeliver",
            abstract: "Deliver an endpoint's events again from a sequence on, and resume it if it was disabled.",
            discussion: """
                The endpoint's events from --from on are delivered again, in order (with the same webhook-id as \
                before, so that receivers can tell), then the new ones.

                Example:
                  admin-cli webhooks redeliver 3f1c9a52-7a4e-4d2b-9a8e-1d2c3b4a5f60 --from 1200
                """)

        @Argument(help: "The endpoint's id (see webhooks list).")
        var id: String

        @Option(help: ArgumentHelp("The sequence of the first event to deliver again.", valueName: "seq"))
        var from: Int64

        @OptionGroup var global: GlobalOptions

        func validate() throws {
            if from < 1 { throw ValidationError("--from must be 1 or more") }
        }

        func run() async throws {
            let session = try Session(global)
            let webhook = try await session.answer({
                try await $0.redeliverWebhook(path: .init(webhookId: id), body: .json(.init(from: from)))
            }) { try $0.ok.body.json }
            await session.show(identifiers: [webhook.id]) {
                session.console.print("Webhook \(webhook.id) delivers again from event \(from) (\(webhook.state.rawValue)).")
            }
        }
    }
}
