import CatalogAPI
import CatalogCore
import CatalogStore
import Foundation
import OpenAPIRuntime

extension CatalogAPIHandler {
    /// The history, filtered: a page as JSON, or every matching event streamed as CSV or NDJSON.
    func listHistory(_ input: Operations.ListHistory.Input) async throws -> Operations.ListHistory.Output {
        let key = try Access.require(.readHistory)
        let query = input.query
        try QueryParameterRules.require(QueryParameterRules.bundleID(query.app, "app"),
                                        QueryParameterRules.productID(query.productId, "productId"),
                                        QueryParameterRules.text(query.actor, "actor", 1...100))
        if let app = query.app, !key.canSee(app: app) {
            throw CatalogError.notFound("no app \(app)")
        }
        let filter = HistoryFilter(
            visibleApps: key.apps, app: query.app, productID: query.productId, actor: query.actor,
            action: query.action.map { EnumMapping.convert($0) }, kind: query.kind.map { EnumMapping.convert($0) },
            state: query.state.map { EnumMapping.convert($0) }, since: query.since, until: query.until)
        let newestFirst = query.order != .oldest

        switch Self.preferredFormat(input.headers.accept) {
        case .csv:
            let events = try await database.history.export(filter, newestFirst: newestFirst)
            return .ok(.init(body: .csv(HistoryExport.body(events, format: .csv))))
        case .applicationXNdjson:
            let events = try await database.history.export(filter, newestFirst: newestFirst)
            return .ok(.init(body: .applicationXNdjson(HistoryExport.body(events, format: .ndjson))))
        default:
            let limit = try PageCursor.limit(query.limit)
            let position = try await position(from: query.cursor)
            let fetched = try await database.history.list(filter, newestFirst: newestFirst, from: position, limit: limit + 1)
            let (events, next) = PageCursor.page(fetched, limit: limit) { "\(position.horizon):\($0.sequence)" }
            return .ok(.init(body: .json(.init(items: try events.map(Components.Schemas.HistoryEvent.init), nextCursor: next))))
        }
    }

    /// Recomputes the chains the key may see.
    func verifyHistory(_ input: Operations.VerifyHistory.Input) async throws -> Operations.VerifyHistory.Output {
        let key = try Access.require(.verifyHistory)
        try QueryParameterRules.require(QueryParameterRules.bundleID(input.query.app, "app"))
        let chains: [String]
        if let app = input.query.app {
            guard key.canSee(app: app) else { throw CatalogError.notFound("no app \(app)") }
            chains = [app]
        } else {
            chains = try await database.history.chains().filter { $0.isEmpty ? key.apps == nil : key.canSee(app: $0) }
        }
        var results: [Components.Schemas.ChainVerification] = []
        for chain in chains {
            let verification = try await database.history.verify(chain: chain)
            results.append(.init(
                app: chain.isEmpty ? nil : chain, events: verification.events, verified: verification.verified,
                lastHash: verification.lastHash,
                firstBrokenLink: verification.firstBrokenLink.map {
                    .init(sequence: Int($0.sequence), chainSequence: Int($0.chainSequence),
                          problem: EnumMapping.convert($0.problem), expectedHash: $0.expectedHash, foundHash: $0.foundHash)
                }))
        }
        return .ok(.init(body: .json(.init(verified: results.allSatisfy(\.verified), chains: results))))
    }

    /// Where a listing continues: the cursor's horizon and last sequence, or a new horizon for a first page.
    private func position(from cursor: String?) async throws -> HistoryPosition {
        let read = try PageCursor.decode(cursor) { text -> HistoryPosition? in
            let parts = text.split(separator: ":")
            guard parts.count == 2, UInt64(parts[0]) != nil, let sequence = Int64(parts[1]) else { return nil }
            return HistoryPosition(horizon: String(parts[0]), afterSequence: sequence)
        }
        if let read { return read }
        return HistoryPosition(horizon: try await database.history.currentHorizon(), afterSequence: nil)
    }

    /// The format the caller prefers among those offered, by quality then by order.
    private static func preferredFormat(_ accept: [AcceptHeaderContentType<Operations.ListHistory.AcceptableContentType>])
        -> Operations.ListHistory.AcceptableContentType
    {
        let offered: [Operations.ListHistory.AcceptableContentType] = [.json, .csv, .applicationXNdjson]
        var best: AcceptHeaderContentType<Operations.ListHistory.AcceptableContentType>?
        for candidate in accept where offered.contains(candidate.contentType) {
            if best == nil || candidate.quality.doubleValue > best!.quality.doubleValue { best = candidate }
        }
        return best?.contentType ?? .json
    }
}
