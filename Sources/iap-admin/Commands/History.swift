import ArgumentParser
import CatalogAPI

/// `history`: the auditors' record of who changed what, when and why.
struct History: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the history of a product: every change, who made it, when and why.",
        discussion: """
            Each event says what happened (created, edited, an action, deleted), the states it moved between, \
            who did it (key name and role), and the reason or the fields that changed. Events of a deleted \
            product remain.

            Example:
              admin-cli history coins.100 --app com.example.game --all
            """,
        subcommands: [ProductHistory.self],
        defaultSubcommand: ProductHistory.self)

    /// Events as a table, oldest or newest first as given.
    static func table(_ events: [Components.Schemas.HistoryEvent], showProduct: Bool) -> Table {
        var table = showProduct ? Table("SEQ", "AT", "APP", "PRODUCT", "EVENT", "FROM", "TO", "BY", "DETAIL")
                                : Table("SEQ", "AT", "EVENT", "FROM", "TO", "BY", "DETAIL")
        for event in events {
            var cells: [Table.Cell] = [Table.Cell(String(event.sequence)), Table.Cell(Display.time(event.at))]
            if showProduct { cells += [Table.Cell(event.app ?? "-"), Table.Cell(event.productId ?? "-")] }
            cells += [
                Table.Cell(event.action.map(ActionName.command(for:)) ?? event.kind.rawValue, .bold),
                event.fromState.map(Display.state) ?? Table.Cell("-"),
                event.toState.map(Display.state) ?? Table.Cell("-"),
                Table.Cell("\(event.actor.name) (\(event.actor.role.rawValue))"),
                Table.Cell(detail(of: event)),
            ]
            table.add(cells)
        }
        return table
    }

    /// The reason when there is one, else the fields that changed.
    static func detail(of event: Components.Schemas.HistoryEvent) -> String {
        if let reason = event.reason, !reason.isEmpty { return "“\(reason)”" }
        let fields = event.changes.map(\.field)
        return fields.isEmpty ? "" : "changed " + fields.joined(separator: ", ")
    }
}

/// `history [list] PRODUCT_ID`: one product's events, oldest first.
struct ProductHistory: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List one product's history, oldest first.",
        discussion: """
            Example:
              admin-cli history coins.100 --app com.example.game
            """)

    @Argument(help: "The product's identifier.")
    var productID: String

    @Option(help: "The app's bundle id (default: $IAP_APP or the profile's app).")
    var app: String?

    @OptionGroup var pages: PageOptions

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let session = try Session(global)
        let app = try session.app(app)
        let (events, more) = try await pages.collect(session) { cursor, size in
            let output = try await session.call {
                try await $0.getProductHistory(path: .init(bundleId: app, productId: productID),
                                               query: .init(cursor: cursor, limit: size))
            }
            switch output {
            case .ok(let ok):
                switch ok.body { case .json(let page): return (page.items, page.nextCursor) }
            case .default(let status, let problem):
                throw session.failure(status, problem)
            }
        }
        let console = session.console
        switch session.format {
        case .json: break
        case .quiet: for event in events { console.print(String(event.sequence)) }
        case .human:
            History.table(events, showProduct: false).print(on: console)
            pages.noteMore(more, shown: events.count, noun: "events", session: session)
        }
    }
}
