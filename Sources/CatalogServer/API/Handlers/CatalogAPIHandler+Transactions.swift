import CatalogAPI
import CatalogCore
import CatalogStore
import Foundation
import OpenAPIRuntime
import PurchaseCore

extension CatalogAPIHandler {
    /// The ledger, filtered: a page as JSON, or every matching transaction streamed as CSV or NDJSON.
    func listTransactions(_ input: Operations.ListTransactions.Input) async throws -> Operations.ListTransactions.Output {
        let key = try Access.require(.readPurchases)
        let query = input.query
        let filter = try Self.ledgerFilter(accountToken: query.accountToken, productID: query.productId,
                                           originalTransactionID: query.originalTransactionId,
                                           environment: query.environment, since: query.since, until: query.until)
        let newestFirst = query.order != .oldest
        let app = try await visibleApp(input.path.bundleId, for: key)
        switch Self.preferredFormat(input.headers.accept) {
        case .csv:
            let transactions = database.ledger.export(app.bundleID, filter: filter, newestFirst: newestFirst)
            return .ok(.init(body: .csv(TransactionExport.body(transactions, format: .csv))))
        case .applicationXNdjson:
            let transactions = database.ledger.export(app.bundleID, filter: filter, newestFirst: newestFirst)
            return .ok(.init(body: .applicationXNdjson(TransactionExport.body(transactions, format: .ndjson))))
        default:
            let limit = try PageCursor.limit(query.limit)
            let after = try Self.ledgerCursor(query.cursor)
            let fetched = try await database.ledger.list(app.bundleID, filter: filter, newestFirst: newestFirst,
                                                         after: after, limit: limit + 1)
            let (page, next) = PageCursor.page(fetched, limit: limit) {
                "\($0.1.purchaseMicroseconds):\($0.1.environment.rawValue):\($0.1.transactionID)"
            }
            return .ok(.init(body: .json(.init(items: page.map { .init($0.0) }, nextCursor: next))))
        }
    }

    func getTransaction(_ input: Operations.GetTransaction.Input) async throws -> Operations.GetTransaction.Output {
        let key = try Access.require(.readPurchases)
        let app = try await visibleApp(input.path.bundleId, for: key)
        let transactionID = input.path.transactionId
        guard (1...TransactionFacts.identifierLimit).contains(transactionID.count),
              let (transaction, sources) = try await database.ledger.find(
                app.bundleID, transactionID: transactionID, environment: input.query.environment.map { EnumMapping.convert($0) })
        else { throw CatalogError.notFound("no transaction \(transactionID) in \(app.bundleID)") }
        return .ok(.init(body: .json(.init(transaction, sources: sources))))
    }

    func getTransactionSummary(_ input: Operations.GetTransactionSummary.Input) async throws
        -> Operations.GetTransactionSummary.Output
    {
        let key = try Access.require(.readPurchases)
        let query = input.query
        let filter = try Self.ledgerFilter(accountToken: nil, productID: query.productId, originalTransactionID: nil,
                                           environment: query.environment, since: query.since, until: query.until)
        let app = try await visibleApp(input.path.bundleId, for: key)
        let rows = try await database.ledger.summary(app.bundleID, filter: filter)
        return .ok(.init(body: .json(.init(rows: rows.map(Components.Schemas.TransactionSummaryRow.init)))))
    }

    /// A ledger filter from query parameters, refusing those that break the document's rules.
    static func ledgerFilter(accountToken: String?, productID: String?, originalTransactionID: String?,
                             environment: Components.Schemas.StoreEnvironment?, since: Date?, until: Date?)
        throws(CatalogError) -> LedgerFilter
    {
        var problems = QueryParameterRules.text(productID, "productId", 1...TransactionFacts.identifierLimit)
            + QueryParameterRules.text(originalTransactionID, "originalTransactionId", 1...TransactionFacts.identifierLimit)
        var account: String?
        if let accountToken {
            if let parsed = AccountToken(parsing: accountToken) {
                account = parsed.text
            } else {
                problems.append(FieldProblem(field: "accountToken", rule: "pattern", message: "must be \(AccountToken.rule)"))
            }
        }
        guard problems.isEmpty else { throw .validationFailed(problems) }
        return LedgerFilter(accountToken: account, productID: productID, originalTransactionID: originalTransactionID,
                            environment: environment.map { EnumMapping.convert($0) }, since: since, until: until)
    }

    /// Where a listing of the ledger continues, from its cursor: `micros:environment:transactionId`.
    static func ledgerCursor(_ cursor: String?) throws(CatalogError) -> LedgerCursor? {
        try PageCursor.decode(cursor) { text in
            let parts = text.split(separator: ":", maxSplits: 2)
            guard parts.count == 3, let micros = Int64(parts[0]),
                  let environment = AppStoreEnvironment(rawValue: String(parts[1])), !parts[2].isEmpty
            else { return nil }
            return LedgerCursor(purchaseMicroseconds: micros, environment: environment, transactionID: String(parts[2]))
        }
    }

    /// The format the caller prefers among those offered, by quality then by order.
    private static func preferredFormat(
        _ accept: [AcceptHeaderContentType<Operations.ListTransactions.AcceptableContentType>]
    ) -> Operations.ListTransactions.AcceptableContentType {
        let offered: [Operations.ListTransactions.AcceptableContentType] = [.json, .csv, .applicationXNdjson]
        var best: AcceptHeaderContentType<Operations.ListTransactions.AcceptableContentType>?
        for candidate in accept where offered.contains(candidate.contentType) {
            if best == nil || candidate.quality.doubleValue > best!.quality.doubleValue { best = candidate }
        }
        return best?.contentType ?? .json
    }
}
