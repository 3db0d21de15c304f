import CatalogAPI
import CatalogCore
import CatalogStore
import Foundation
import HTTPTypes
import Hummingbird

extension ConsoleRoutes {
    /// The apps the key may see, a page at a time (the API's `listApps`).
    func appsPage(_ request: Request) async throws -> Response {
        let query = ConsoleForm.query(of: request)
        do {
            let page = try await api.listApps(.init(query: .init(cursor: query.text("cursor"), limit: 50))).ok.body.json
            return try templates.page("apps", AppsPage(
                chrome: chrome("Apps", section: "apps"), apps: page.items.map(Self.appRow),
                pager: ConsolePager("/console/apps", cursor: query.text("cursor"), nextCursor: page.nextCursor)))
        } catch {
            return try errorPage(error)
        }
    }

    /// An app's products with the API's filters (state, type, text) and keyset pages (`listProducts`).
    func productsPage(_ request: Request, bundleID: String) async throws -> Response {
        let query = ConsoleForm.query(of: request)
        let state = query.text("state")
        let type = query.text("type")
        let text = query.text("q")
        do {
            let app = try await api.getApp(.init(path: .init(bundleId: bundleID))).ok.body.json
            let filters = try Self.productFilters(query)
            let page = try await api.listProducts(.init(
                path: .init(bundleId: bundleID),
                query: .init(state: filters.state, _type: filters.type, q: text, cursor: query.text("cursor"), limit: 50)))
                .ok.body.json
            let base = "/console/apps/\(Self.segment(bundleID))/products"
            let filterQuery: [(String, String?)] = [("state", state), ("type", type), ("q", text)]
            return try templates.page("products", ProductsPage(
                chrome: chrome("Products of \(app.name)", section: "apps"), app: Self.appRow(app),
                q: text ?? "",
                states: ConsoleOption.list(ReviewState.allCases.map(\.rawValue), selected: state),
                types: ConsoleOption.list(PurchaseType.allCases.map(\.rawValue), selected: type),
                products: page.items.map { product in
                    ProductRow(productID: product.productId, referenceName: product.referenceName,
                               type: product._type.rawValue, state: product.state.rawValue, onSale: product.onSale,
                               version: product.version, updatedAt: Self.time(product.updatedAt).display,
                               href: Self.productHref(bundleID, product.productId))
                },
                filtered: state != nil || type != nil || text != nil,
                pager: ConsolePager(base, filters: filterQuery, cursor: query.text("cursor"), nextCursor: page.nextCursor),
                notice: nil))
        } catch {
            return try errorPage(error)
        }
    }

    /// The filters of a products page as the API's values; an unknown one is refused naming the field.
    private static func productFilters(_ form: ConsoleForm) throws
        -> (state: Components.Schemas.ReviewState?, type: Components.Schemas.PurchaseType?)
    {
        var query = ConsoleQuery(form)
        let state = query.value("state", Components.Schemas.ReviewState.self, message: "is not a review state")
        let type = query.value("type", Components.Schemas.PurchaseType.self, message: "is not a purchase type")
        try query.check()
        return (state, type)
    }

    static func appRow(_ app: Components.Schemas.App) -> AppRow {
        appRow(bundleID: app.bundleId, name: app.name, primaryLocale: app.primaryLocale, newsstand: app.newsstand)
    }

    static func appRow(bundleID: String, name: String, primaryLocale: String, newsstand: Bool) -> AppRow {
        AppRow(bundleID: bundleID, name: name, primaryLocale: primaryLocale, newsstand: newsstand,
               productsHref: "/console/apps/\(segment(bundleID))/products", transactionsHref: transactionsHref(bundleID),
               summaryHref: transactionsHref(bundleID) + "/summary")
    }

    /// A product: live and draft side by side, what approval still needs, the lifecycle with its state, its
    /// latest history, and the actions the key's role allows now.
    func productPage(_ request: Request, bundleID: String, productID: String) async throws -> Response {
        let done = ConsoleForm.query(of: request).text("done").flatMap(ReviewAction.init(rawValue:))
        do {
            return try await productView(bundleID, productID, notice: done.map {
                ConsoleNotice(success: "\($0.rawValue) done")
            }, status: .ok)
        } catch {
            return try errorPage(error)
        }
    }

    /// Takes one action from the product page's form, with `If-Match` of the version the page showed: a page
    /// that is out of date cannot move the product (412, and the page as it is now). Any refusal is shown on
    /// the product's page with the API's status; success goes back to the page (303).
    func takeAction(_ request: Request, bundleID: String, productID: String) async throws -> Response {
        let form = try await ConsoleForm.body(of: request)
        var problems: [FieldProblem] = []
        let action = form.text("action").flatMap(Components.Schemas.Action.init(rawValue:))
        if action == nil { problems.append(FieldProblem(field: "action", rule: "value", message: "is not an action")) }
        let version = form.text("version").flatMap(Int.init)
        if version == nil {
            problems.append(FieldProblem(field: "version", rule: "required", message: "the page's version is required"))
        }
        do {
            guard let action, let version else { throw CatalogError.validationFailed(problems) }
            _ = try await api.performAction(.init(
                path: .init(bundleId: bundleID, productId: productID), headers: .init(ifMatch: "\"\(version)\""),
                body: .json(.init(action: action, reason: form.text("reason")))))
            return Self.redirect(to: Self.href(Self.productHref(bundleID, productID), [("done", action.rawValue)]))
        } catch {
            let problem = Problem(error: error)
            guard problem.status != .notFound, problem.status != .tooManyRequests else { return try errorPage(error) }
            var detail = problem.detail
            if problem.status == .preconditionFailed {
                detail = "The product changed since this page was loaded (you saw version \(version ?? 0)). "
                    + "Nothing was changed: check the product as it is now, below, and try again."
            }
            return try await productView(bundleID, productID, notice: ConsoleNotice(problem: problem, detail: detail),
                                         status: problem.status)
        }
    }

    private func productView(_ bundleID: String, _ productID: String, notice: ConsoleNotice?,
                             status: HTTPResponse.Status) async throws -> Response {
        let key = try Access.require(.readCatalog)
        let (app, product) = try await api.visibleProduct(bundleID, productID, for: key)
        let history = try await api.listHistory(.init(query: .init(
            app: bundleID, productId: productID, order: .newest, limit: 20))).ok.body.json
        let historyHref = Self.href("/console/history", [("app", bundleID), ("productId", productID)])
        let allowed = product.allowedActions(for: key.role)
        let needingReason = allowed.filter { Transition.named($0).guards.contains(.reason) }.map(\.rawValue)
        let revisions = Self.revisions(product)
        let changed = revisions.filter(\.changed).map(\.field)
        let page = ProductPage(
            chrome: chrome("\(product.productID) · \(app.name)", section: "apps"),
            app: Self.appRow(bundleID: app.bundleID, name: app.name, primaryLocale: app.primaryLocale,
                             newsstand: app.newsstand),
            productID: product.productID, referenceName: product.referenceName, type: product.type.rawValue,
            state: product.state.rawValue, version: product.version, onSale: product.onSale,
            updatedAt: Self.time(product.updatedAt).display, createdAt: Self.time(product.createdAt).display,
            notice: notice, revisions: revisions, hasLive: product.liveContent != nil,
            hasDraft: product.draftContent != nil,
            liveAndDraft: product.liveContent != nil && product.draftContent != nil,
            changedFields: changed.isEmpty || product.liveContent == nil ? nil : changed.joined(separator: ", "),
            missing: product.missingForApproval(in: app).map(\.description),
            approvalAhead: product.state == .pendingDeveloperApproval,
            actions: allowed.isEmpty ? nil : ActionForm(
                href: Self.productHref(bundleID, productID) + "/actions", version: product.version,
                buttons: allowed.map { .init(action: $0.rawValue, label: Self.label(of: $0)) },
                reasonNeededBy: needingReason.isEmpty ? nil : needingReason.joined(separator: " and ")),
            noActionsReason: allowed.isEmpty ? Self.noActions(key.role, state: product.state) : nil,
            diagram: LifecycleDiagram(highlighting: product.state),
            events: try history.items.map(Self.timelineEvent),
            moreHistoryHref: history.nextCursor == nil ? nil : historyHref,
            historyHref: historyHref,
            salesHref: Self.href(Self.transactionsHref(bundleID), [("productId", productID)]),
            verifyHref: key.role.may(.verifyHistory) ? Self.href("/console/history/verify", [("app", bundleID)]) : nil)
        return try templates.page("product", page, status: status)
    }

    /// A button's words: the action's name as the API spells it, in plain words.
    static func label(of action: ReviewAction) -> String {
        let words = action.rawValue.replacingOccurrences(of: "_", with: " ")
        return words.prefix(1).uppercased() + words.dropFirst()
    }

    private static func noActions(_ role: KeyRole, state: ReviewState) -> String {
        if role == .auditor { return "An auditor key reads and verifies; it takes no actions." }
        if state.isTerminal { return "\(state.rawValue) is terminal: no action leads anywhere from it." }
        return "No action a \(role.rawValue) key may take leads anywhere from \(state.rawValue) now."
    }

    /// Every field of the product, live beside draft; `changed` where the draft differs (CatalogCore's own
    /// comparison of reviewed content, so the console names exactly the fields a `submit_change` would send).
    static func revisions(_ product: Product) -> [RevisionRow] {
        let live = product.liveContent
        let draft = product.draftContent
        let changed = Set(live.flatMap { live in draft.map { $0.changes(from: live).map(\.field) } } ?? [])
        func row(_ field: String, _ name: String, _ value: (ReviewedContent) -> String) -> RevisionRow {
            RevisionRow(field: name, live: live.map(value) ?? "—", draft: draft.map(value) ?? "—",
                        changed: changed.contains(field))
        }
        func shared(_ name: String, _ value: String) -> RevisionRow {
            RevisionRow(field: name, live: live == nil ? "—" : value, draft: draft == nil ? "—" : value, changed: false)
        }
        let price = product.price.map { "\($0.amount.text) \($0.currency)" } ?? "none"
        let territories = product.territoryPrices.map { "\($0.territory): \($0.amount.text) \($0.currency)" }
        return [
            shared("Reference name", product.referenceName),
            shared("Price", price),
            shared("Territory prices", territories.isEmpty ? "none" : territories.joined(separator: "; ")),
            shared("Cleared for sale", product.clearedForSale ? "yes" : "no"),
            row("localizations", "Localizations") { content in
                content.localizations.isEmpty ? "none" : content.localizations
                    .map { "\($0.locale): \($0.displayName) — \($0.description)" }.joined(separator: "; ")
            },
            row("reviewNote", "Review note") { $0.reviewNote ?? "none" },
            row("familyShareable", "Family shareable") { $0.familyShareable ? "yes" : "no" },
            row("subscriptionGroupId", "Subscription group") { $0.subscriptionGroupID?.lowercaseText ?? "none" },
            row("level", "Level") { $0.level.map(String.init) ?? "none" },
            row("duration", "Duration") { $0.duration?.rawValue ?? "none" },
        ]
    }
}
