import CatalogAPI
import CatalogCore
import Foundation
import HTTPTypes
import Hummingbird
import OpenAPIRuntime

extension ConsoleRoutes {
    /// The history across the catalog with the API's filters (`listHistory`), newest first unless asked, a
    /// stable keyset page at a time.
    func historyPage(_ request: Request) async throws -> Response {
        let query = ConsoleForm.query(of: request)
        let filters: [(String, String?)] = ["app", "productId", "actor", "action", "kind", "state", "since", "until", "order"]
            .map { ($0, query.text($0)) }
        let key = try Access.require(.readHistory)
        var events: [TimelineEvent] = []
        var nextCursor: String?
        let notice: ConsoleNotice?
        do {
            notice = try await refusalOfFilters {
                let page = try await api.listHistory(.init(query: try Self.historyQuery(query))).ok.body.json
                events = try page.items.map(Self.timelineEvent)
                nextCursor = page.nextCursor
            }
        } catch {
            return try errorPage(error)
        }
        return try templates.page("history", HistoryPage(
            chrome: chrome("History", section: "history"), app: query.text("app") ?? "",
            productID: query.text("productId") ?? "", actor: query.text("actor") ?? "",
            since: query.text("since") ?? "", until: query.text("until") ?? "",
            actions: ConsoleOption.list(ReviewAction.allCases.map(\.rawValue), selected: query.text("action")),
            kinds: ConsoleOption.list(Components.Schemas.HistoryKind.allCases.map(\.rawValue), selected: query.text("kind")),
            states: ConsoleOption.list(ReviewState.allCases.map(\.rawValue), selected: query.text("state")),
            oldestFirst: query.text("order") == "oldest", events: events,
            pager: ConsolePager("/console/history", filters: filters, cursor: query.text("cursor"), nextCursor: nextCursor),
            verifyHref: key.role.may(.verifyHistory) ? Self.href("/console/history/verify", [("app", query.text("app"))]) : nil,
            notice: notice), status: notice.map { HTTPResponse.Status(code: $0.status) } ?? .ok)
    }

    /// The query's filters as the API's; an unknown value is refused naming its field, a time without a zone
    /// (what a browser's date-time field sends) is read as UTC.
    private static func historyQuery(_ form: ConsoleForm) throws -> Operations.ListHistory.Input.Query {
        var query = ConsoleQuery(form)
        let result = Operations.ListHistory.Input.Query(
            app: query.text("app"), productId: query.text("productId"), actor: query.text("actor"),
            action: query.value("action", Components.Schemas.Action.self),
            kind: query.value("kind", Components.Schemas.HistoryKind.self),
            state: query.value("state", Components.Schemas.ReviewState.self), since: query.instant("since"),
            until: query.instant("until"), order: query.value("order", Operations.ListHistory.Input.Query.OrderPayload.self),
            cursor: query.text("cursor"), limit: 50)
        try query.check()
        return result
    }

    /// The verification of every chain the key may see, or of one app's (`verifyHistory`): a green "chain
    /// verified", or the first broken link with what was expected and found. It reads every event of each
    /// chain, so it runs when asked, not with every page.
    func verifyPage(_ request: Request) async throws -> Response {
        let app = ConsoleForm.query(of: request).text("app")
        do {
            let result = try await api.verifyHistory(.init(query: .init(app: app))).ok.body.json
            let chains = result.chains.map { chain in
                ChainRow(chain: chain.app ?? "keys (no app)", events: chain.events, verified: chain.verified,
                         lastHash: chain.lastHash,
                         brokenAt: chain.firstBrokenLink.map { "event \($0.sequence) (position \($0.chainSequence) of the chain)" },
                         problem: chain.firstBrokenLink?.problem.rawValue,
                         expectedHash: chain.firstBrokenLink?.expectedHash, foundHash: chain.firstBrokenLink?.foundHash)
            }
            return try templates.page("verify", VerifyPage(
                chrome: chrome(app.map { "Verification of \($0)" } ?? "Verification", section: "history"), app: app,
                chains: chains, allVerified: result.verified, empty: chains.isEmpty))
        } catch {
            return try errorPage(error)
        }
    }

    /// An event of the API's history as a timeline entry.
    static func timelineEvent(_ event: Components.Schemas.HistoryEvent) throws -> TimelineEvent {
        let time = time(event.at)
        let changes = event.changes.map {
            TimelineEvent.ChangeRow(field: $0.field, old: display($0.old), new: display($0.new))
        }
        return TimelineEvent(
            sequence: event.sequence, chainSequence: event.chainSequence, at: time.display, atMachine: time.machine,
            app: event.app, productID: event.productId,
            productHref: event.app.flatMap { app in event.productId.map { productHref(app, $0) } },
            kind: event.kind.rawValue, action: event.action?.rawValue, fromState: event.fromState?.rawValue,
            toState: event.toState?.rawValue, actorName: event.actor.name, actorRole: event.actor.role?.rawValue,
            actorKeyID: event.actor.keyId, reason: event.reason, changes: changes, hasChanges: !changes.isEmpty,
            requestID: event.requestId, hash: event.hash, shortHash: String(event.hash.prefix(12)))
    }

    /// A changed value as text: a string as itself, anything else as compact JSON, an absent one as "—".
    private static func display(_ value: OpenAPIValueContainer?) -> String {
        guard let value else { return "—" }
        if let text = value.value as? String { return text }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return "?" }
        return String(decoding: data, as: UTF8.self)
    }
}
