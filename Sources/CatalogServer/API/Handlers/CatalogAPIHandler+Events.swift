import CatalogAPI
import CatalogCore
import CatalogStore
import OpenAPIRuntime

extension CatalogAPIHandler {
    /// The history's events after a sequence: a page as JSON, or a live stream (Server-Sent Events) that
    /// resumes after `Last-Event-ID`.
    func listEvents(_ input: Operations.ListEvents.Input) async throws -> Operations.ListEvents.Output {
        let key = try Access.require(.readHistory)
        let query = input.query
        var problems = QueryParameterRules.bundleID(query.app, "app")
        if let after = query.after, after < 0 {
            problems.append(FieldProblem(field: "after", rule: "minimum", message: "must be 0 or more"))
        }
        if let limit = query.limit, !PageCursor.limits.contains(limit) {
            problems.append(FieldProblem(field: "limit", rule: "range", message: "must be between 1 and 200"))
        }
        var after = query.after ?? 0
        if let lastEventID = input.headers.lastEventID {
            if lastEventID.utf8.count <= 20, lastEventID.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
               let sequence = Int64(lastEventID) {
                after = sequence
            } else {
                problems.append(FieldProblem(field: "Last-Event-ID", rule: "format",
                                             message: "must be the id of an event this stream gave"))
            }
        }
        try QueryParameterRules.require(problems)
        if let app = query.app, !key.canSee(app: app) { throw Self.noApp(app) }
        let filter = HistoryFilter(visibleApps: key.apps, app: query.app, kind: query.kind.map { EnumMapping.convert($0) })

        if Self.wantsStream(input.headers.accept) {
            guard let slot = eventStreams.take() else {
                throw Problem.unavailable("this server streams events to \(eventStreams.limit) clients already")
            }
            return .ok(.init(body: .textEventStream(EventStream.body(
                changes: changes, pages: eventPages, filter: filter, after: after, heartbeat: eventStreamHeartbeat,
                slot: slot))))
        }
        let page = try await changes.events(after: after, filter: filter, limit: query.limit ?? PageCursor.defaultLimit, fresh: true)
        return .ok(.init(body: .json(.init(items: try page.events.map(Components.Schemas.HistoryEvent.init),
                                           next: page.next))))
    }

    /// Whether the caller prefers the stream to JSON (by quality, then by order).
    private static func wantsStream(_ accept: [AcceptHeaderContentType<Operations.ListEvents.AcceptableContentType>])
        -> Bool
    {
        var best: AcceptHeaderContentType<Operations.ListEvents.AcceptableContentType>?
        for candidate in accept where candidate.contentType == .json || candidate.contentType == .textEventStream {
            if best == nil || candidate.quality.doubleValue > best!.quality.doubleValue { best = candidate }
        }
        return best?.contentType == .textEventStream
    }
}
