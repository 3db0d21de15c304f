import ArgumentParser
import CatalogAPI

/// `history`: the auditors' record of who changed what, when and why.
struct History: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show, verify and export the history: every change, who made it, when and why.",
        discussion: """
            `history PRODUCT_ID` tells one product's story, oldest first; `history` with filters (or none) \
            lists events across the apps your key may see, newest first. Each event says what happened \
            (created, edited, an action, deleted, app and key changes), the states it moved between, who did \
            it (key name and role), and the reason or the fields that changed. Events of a deleted product remain.

            `history verify` recomputes the tamper-evident hash chains; `history export` writes every matching \
            event as CSV or NDJSON.

            Examples:
              admin-cli history coins.100 --app com.example.game
              admin-cli history --app com.example.game --action reject --since 2026-11-01
              admin-cli history verify
              admin-cli history export --format csv --out history.csv --since 2026-01-01
            """,
        subcommands: [List.self, Verify.self, Export.self],
        defaultSubcommand: List.self)

    /// Events as a table, in the order given.
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
                Table.Cell(event.actor.role.map { "\(event.actor.name) (\($0.rawValue))" } ?? event.actor.name),
                Table.Cell(detail(of: event)),
            ]
            table.add(cells)
        }
        return table
    }

    /// One event on one line, for a feed that cannot align columns (`events tail`): sequence, time, what
    /// happened, where, who, and the reason or the fields that changed.
    static func line(_ event: Components.Schemas.HistoryEvent, console: Console) -> String {
        let what = event.action.map(ActionName.command(for:)) ?? event.kind.rawValue
        let place = [event.app, event.productId].compactMap { $0 }.joined(separator: " ")
        var parts = [String(event.sequence), Display.time(event.at), console.paint(what, .bold)]
        if !place.isEmpty { parts.append(place) }
        if let from = event.fromState, let to = event.toState { parts.append("\(from.rawValue) → \(to.rawValue)") }
        parts.append("by " + (event.actor.role.map { "\(event.actor.name) (\($0.rawValue))" } ?? event.actor.name))
        let detail = detail(of: event)
        if !detail.isEmpty { parts.append(detail) }
        return parts.joined(separator: "  ")
    }

    /// The reason when there is one, else the fields that changed.
    static func detail(of event: Components.Schemas.HistoryEvent) -> String {
        if let reason = event.reason, !reason.isEmpty { return "“\(reason)”" }
        let fields = event.changes.map(\.field)
        return fields.isEmpty ? "" : "changed " + fields.joined(separator: ", ")
    }
}

/// The filters of the history query, shared by `history` and `history export`.
struct HistoryFilters: ParsableArguments {
    @Option(help: "Only this app's events (default: every app your key may see).")
    var app: String?

    @Option(help: ArgumentHelp("Only events by this key: its id or its name.", valueName: "key"))
    var actor: String?

    @Option(help: "Only this lifecycle action.")
    var action: Components.Schemas.Action?

    @Option(help: "Only this kind of event.")
    var kind: Components.Schemas.HistoryKind?

    @Option(help: "Only events that moved a product from or to this state.")
    var state: Components.Schemas.ReviewState?

    @Option(help: ArgumentHelp("Only events at or after this instant: RFC 3339 or a day (2026-11-01, in UTC).", valueName: "time"))
    var since: TimeArgument?

    @Option(help: ArgumentHelp("Only events before this instant: RFC 3339 or a day.", valueName: "time"))
    var until: TimeArgument?

    @Option(help: "newest (the default for listings across products) or oldest first (the default for one product).")
    var order: Operations.ListHistory.Input.Query.OrderPayload?

    /// Whether anything but the app narrows the query.
    var narrowsEvents: Bool {
        actor != nil || action != nil || kind != nil || state != nil || since != nil || until != nil
    }

    /// The API's query for these filters.
    func query(app: String?, productID: String?, order defaultOrder: Operations.ListHistory.Input.Query.OrderPayload,
               cursor: String? = nil, limit: Int? = nil) -> Operations.ListHistory.Input.Query {
        .init(app: app, productId: productID, actor: actor, action: action, kind: kind, state: state, since: since?.date,
              until: until?.date, order: order ?? defaultOrder, cursor: cursor, limit: limit)
    }
}
