import CatalogAPI
import CatalogCore
import Foundation
import HTTPTypes
import Hummingbird

extension ConsoleRoutes {
    /// The filters of an app's transactions page, as the API names them.
    static let ledgerFilterNames = ["environment", "productId", "accountToken", "originalTransactionId", "since", "until",
                                    "order"]

    /// An app's ledger with the API's filters and keyset pages (`listTransactions`), newest purchase first
    /// unless asked. A filter the API refuses is named beside the filters.
    func transactionsPage(_ request: Request, bundleID: String) async throws -> Response {
        let form = ConsoleForm.query(of: request)
        let filters: [(String, String?)] = Self.ledgerFilterNames.map { ($0, form.text($0)) }
        let base = Self.transactionsHref(bundleID)
        do {
            let app = try await api.getApp(.init(path: .init(bundleId: bundleID))).ok.body.json
            var rows: [TransactionRow] = []
            var nextCursor: String?
            let notice = try await refusalOfFilters {
                let page = try await api.listTransactions(.init(path: .init(bundleId: bundleID),
                                                                query: try Self.ledgerQuery(form))).ok.body.json
                rows = page.items.map { Self.transactionRow($0, bundleID: bundleID) }
                nextCursor = page.nextCursor
            }
            return try templates.page("transactions", TransactionsPage(
                chrome: chrome("Transactions of \(app.name)", section: "apps"), app: Self.appRow(app),
                productID: form.text("productId") ?? "", accountToken: form.text("accountToken") ?? "",
                originalTransactionID: form.text("originalTransactionId") ?? "",
                since: form.text("since") ?? "", until: form.text("until") ?? "",
                environments: Self.environmentOptions(selected: form.text("environment")),
                oldestFirst: form.text("order") == "oldest", transactions: rows,
                filtered: filters.contains { $0.1 != nil && $0.0 != "order" },
                pager: ConsolePager(base, filters: filters, cursor: form.text("cursor"), nextCursor: nextCursor),
                notice: notice),
                status: notice.map { HTTPResponse.Status(code: $0.status) } ?? .ok)
        } catch {
            return try errorPage(error)
        }
    }

    /// One transaction of the ledger with every submission and notification that brought it (`getTransaction`):
    /// its facts, whether the catalog knows its product as Apple sold it, its sources.
    func transactionPage(_ request: Request, bundleID: String, transactionID: String) async throws -> Response {
        var query = ConsoleQuery(ConsoleForm.query(of: request))
        do {
            let environment = query.value("environment", Components.Schemas.StoreEnvironment.self)
            try query.check()
            let app = try await api.getApp(.init(path: .init(bundleId: bundleID))).ok.body.json
            let transaction = try await api.getTransaction(.init(
                path: .init(bundleId: bundleID, transactionId: transactionID), query: .init(environment: environment)))
                .ok.body.json
            let sources = (transaction.sources ?? []).map { source in
                SourceRow(kind: source.kind.rawValue, id: source.id, accountToken: source.accountToken,
                          recordedFirst: source.recorded, at: Self.time(source.at).display)
            }
            return try templates.page("transaction", TransactionPage(
                chrome: chrome("Transaction \(transaction.transactionId)", section: "apps"), app: Self.appRow(app),
                transaction: Self.transactionRow(transaction, bundleID: bundleID),
                facts: Self.facts(of: transaction), catalogType: transaction.catalogType?.rawValue,
                appleType: transaction.appleType, sources: sources,
                historyHref: Self.href("/console/history", [("app", bundleID), ("productId", transaction.productId)]),
                productTransactionsHref: Self.href(Self.transactionsHref(bundleID),
                                                   [("productId", transaction.productId)])))
        } catch {
            return try errorPage(error)
        }
    }

    /// What finance reconciles (`getTransactionSummary`): per UTC day × product × currency, one table per
    /// environment, Production first, with each currency's totals of that environment only. Sandbox, Xcode and
    /// LocalTesting are never added to Production, here as in the API.
    func summaryPage(_ request: Request, bundleID: String) async throws -> Response {
        let form = ConsoleForm.query(of: request)
        do {
            let app = try await api.getApp(.init(path: .init(bundleId: bundleID))).ok.body.json
            var environments: [SummaryEnvironment] = []
            let notice = try await refusalOfFilters {
                var query = ConsoleQuery(form)
                let input = Operations.GetTransactionSummary.Input.Query(
                    environment: query.value("environment", Components.Schemas.StoreEnvironment.self),
                    productId: query.text("productId"), since: query.instant("since"), until: query.instant("until"))
                try query.check()
                let rows = try await api.getTransactionSummary(.init(path: .init(bundleId: bundleID), query: input))
                    .ok.body.json.rows
                environments = SummaryEnvironment.grouping(rows)
            }
            return try templates.page("summary", SummaryPage(
                chrome: chrome("Reconciliation of \(app.name)", section: "apps"), app: Self.appRow(app),
                productID: form.text("productId") ?? "", since: form.text("since") ?? "", until: form.text("until") ?? "",
                environments: Self.environmentOptions(selected: form.text("environment")),
                tables: environments, empty: environments.isEmpty, notice: notice),
                status: notice.map { HTTPResponse.Status(code: $0.status) } ?? .ok)
        } catch {
            return try errorPage(error)
        }
    }

    /// Runs `read`; a refusal of the page's filters (400 or 422) comes back as the notice shown beside them,
    /// any other refusal is thrown for the error page.
    func refusalOfFilters(_ read: () async throws -> Void) async throws -> ConsoleNotice? {
        do {
            try await read()
            return nil
        } catch {
            let problem = Problem(error: error)
            guard problem.status == .unprocessableContent || problem.status == .badRequest else { throw error }
            return ConsoleNotice(problem: problem)
        }
    }

    /// The transactions page's filters as the API's query.
    private static func ledgerQuery(_ form: ConsoleForm) throws -> Operations.ListTransactions.Input.Query {
        var query = ConsoleQuery(form)
        let result = Operations.ListTransactions.Input.Query(
            accountToken: query.text("accountToken"), productId: query.text("productId"),
            originalTransactionId: query.text("originalTransactionId"),
            environment: query.value("environment", Components.Schemas.StoreEnvironment.self),
            since: query.instant("since"), until: query.instant("until"),
            order: query.value("order", Operations.ListTransactions.Input.Query.OrderPayload.self),
            cursor: query.text("cursor"), limit: 50)
        try query.check()
        return result
    }

    private static func environmentOptions(selected: String?) -> [ConsoleOption] {
        ConsoleOption.list(Components.Schemas.StoreEnvironment.allCases.map(\.rawValue), selected: selected)
    }

    static func transactionsHref(_ bundleID: String) -> String { "/console/apps/\(segment(bundleID))/transactions" }

    static func transactionRow(_ transaction: Components.Schemas.LedgerTransaction, bundleID: String) -> TransactionRow {
        let environment = transaction.environment.rawValue
        return TransactionRow(
            transactionID: transaction.transactionId,
            href: href(transactionsHref(bundleID) + "/" + segment(transaction.transactionId), [("environment", environment)]),
            environment: environment, production: transaction.environment == .production,
            productID: transaction.productId, catalogMismatch: transaction.catalogMismatch, quantity: transaction.quantity,
            price: transaction.price.map { "\($0.amount) \($0.currency)" },
            purchasedAt: time(transaction.purchaseDate).display,
            expiresAt: transaction.expiresDate.map { time($0).display },
            revokedAt: transaction.revocationDate.map { time($0).display }, accountToken: transaction.accountToken)
    }

    /// The facts of one transaction that its row does not show, those a source gave.
    private static func facts(of transaction: Components.Schemas.LedgerTransaction) -> [FactRow] {
        let facts: [(String, String?)] = [
            ("Original transaction", transaction.originalTransactionId),
            ("Original purchase", transaction.originalPurchaseDate.map { time($0).display }),
            ("Revocation reason", transaction.revocationReason.map { $0 == 1 ? "1: an issue in the app" : "\($0): another reason" }),
            ("Storefront", transaction.storefront),
            ("App transaction", transaction.appTransactionId),
            ("Ownership", transaction.inAppOwnershipType),
            ("Web order line item", transaction.webOrderLineItemId),
            ("Reason", transaction.transactionReason),
            ("Version", String(transaction.version)),
            ("First recorded", time(transaction.createdAt).display),
            ("Last changed", time(transaction.updatedAt).display),
        ]
        return facts.compactMap { label, value in value.map { FactRow(label: label, value: $0) } }
    }
}
