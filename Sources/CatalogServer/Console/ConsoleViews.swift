import CatalogCore
import Foundation
import HTTPTypes

// The console's view models: plain data for the templates, built by the pages and rendered by Mustache, which
// escapes every value. Nothing here holds markup.

/// What every page shows around its content: the title, who is signed in, the navigation, the form token.
struct ConsoleChrome: Sendable {
    struct SignedIn: Sendable {
        let keyName: String
        let role: String
        /// "every app", or the apps the key is limited to.
        let scope: String
    }

    struct NavItem: Sendable {
        let label: String
        let href: String
        /// The section the page belongs to (`aria-current`).
        let current: Bool
    }

    let title: String
    let signedIn: SignedIn?
    let nav: [NavItem]
    /// Whether the key's role reads the ledger (`readPurchases`): links to pages it may not open are left out.
    let mayReadLedger: Bool
    /// The session's CSRF token, for every form of the page.
    let csrf: String?

    /// The chrome of a page shown without a session: its title, no navigation, no form token.
    static func signedOut(_ title: String) -> ConsoleChrome {
        ConsoleChrome(title: title, signedIn: nil, nav: [], mayReadLedger: false, csrf: nil)
    }
}

/// The links between keyset pages: the next page's (the API's cursor) and, past the first, the first page's;
/// both keep the page's filters.
struct ConsolePager: Sendable {
    let nextHref: String?
    let firstHref: String?

    /// The links of a page of `path` with `filters`, showing the page at `cursor` (`nil`: the first).
    init(_ path: String, filters: [(String, String?)] = [], cursor: String?, nextCursor: String?) {
        nextHref = nextCursor.map { ConsoleRoutes.href(path, filters + [("cursor", $0)]) }
        firstHref = cursor == nil ? nil : ConsoleRoutes.href(path, filters)
    }
}

/// An option of a `<select>`.
struct ConsoleOption: Sendable {
    let value: String
    let label: String
    let selected: Bool

    /// The options of `values`, `selected` marked, after an "any" option with the empty value.
    static func list(_ values: [String], selected: String?, any: String? = "any") -> [ConsoleOption] {
        (any.map { [ConsoleOption(value: "", label: $0, selected: selected == nil)] } ?? [])
            + values.map { ConsoleOption(value: $0, label: $0, selected: $0 == selected) }
    }
}

/// A refusal shown on a page: what the API would have answered, in words.
struct ConsoleNotice: Sendable {
    let status: Int
    let title: String
    let detail: String?
    /// The items a refusal names (what approval needs, the fields at fault).
    let items: [String]
    let hasItems: Bool
    let requestID: String?
    /// `error` or `success`, for the style.
    let kind: String
    let isError: Bool

    init(problem: Problem, detail: String? = nil) {
        status = Int(problem.status.code)
        title = problem.title
        self.detail = detail ?? problem.detail
        items = (problem.missing ?? problem.errors ?? []).map(\.description)
        hasItems = !items.isEmpty
        requestID = RequestScope.requestID
        kind = "error"
        isError = true
    }

    init(success title: String, detail: String? = nil) {
        status = 200
        self.title = title
        self.detail = detail
        items = []
        hasItems = false
        requestID = nil
        kind = "success"
        isError = false
    }
}

struct SignInPage: Sendable {
    let chrome: ConsoleChrome
    let notice: ConsoleNotice?
}

struct ErrorPage: Sendable {
    let chrome: ConsoleChrome
    let notice: ConsoleNotice
}

struct AppRow: Sendable {
    let bundleID: String
    let name: String
    let primaryLocale: String
    let newsstand: Bool
    let productsHref: String
    /// The app's ledger and its reconciliation summary (ConsoleRoutes+Transactions.swift).
    let transactionsHref: String
    let summaryHref: String
}

struct AppsPage: Sendable {
    let chrome: ConsoleChrome
    let apps: [AppRow]
    let pager: ConsolePager
}

struct ProductRow: Sendable {
    let productID: String
    let referenceName: String
    let type: String
    let state: String
    let onSale: Bool
    let version: Int
    let updatedAt: String
    let href: String
}

struct ProductsPage: Sendable {
    let chrome: ConsoleChrome
    let app: AppRow
    let q: String
    let states: [ConsoleOption]
    let types: [ConsoleOption]
    let products: [ProductRow]
    let filtered: Bool
    let pager: ConsolePager
    let notice: ConsoleNotice?
}

/// One field of a product, live beside draft.
struct RevisionRow: Sendable {
    let field: String
    let live: String
    let draft: String
    let changed: Bool
}

/// One event of a timeline.
struct TimelineEvent: Sendable {
    let sequence: Int
    let chainSequence: Int
    let at: String
    let atMachine: String
    let app: String?
    let productID: String?
    let productHref: String?
    let kind: String
    let action: String?
    let fromState: String?
    let toState: String?
    let actorName: String
    let actorRole: String?
    let actorKeyID: String?
    let reason: String?
    let changes: [ChangeRow]
    let hasChanges: Bool
    let requestID: String?
    let hash: String
    let shortHash: String

    struct ChangeRow: Sendable {
        let field: String
        let old: String
        let new: String
    }
}

/// The actions a key may take on a product, as one form.
struct ActionForm: Sendable {
    let href: String
    let version: Int
    let buttons: [ActionButton]
    /// Whether any action needs a reason (the reason field is then described as required for them).
    let reasonNeededBy: String?

    struct ActionButton: Sendable {
        let action: String
        let label: String
    }
}

struct ProductPage: Sendable {
    let chrome: ConsoleChrome
    let app: AppRow
    let productID: String
    let referenceName: String
    let type: String
    let state: String
    let version: Int
    let onSale: Bool
    let updatedAt: String
    let createdAt: String
    let notice: ConsoleNotice?
    /// Live beside draft, when the product has both; otherwise one column.
    let revisions: [RevisionRow]
    let hasLive: Bool
    let hasDraft: Bool
    let liveAndDraft: Bool
    let changedFields: String?
    /// What approval still needs (CatalogCore's rule), only while approval is ahead.
    let missing: [String]
    let approvalAhead: Bool
    let actions: ActionForm?
    let noActionsReason: String?
    let diagram: LifecycleDiagram
    /// The latest events, newest first.
    let events: [TimelineEvent]
    let moreHistoryHref: String?
    let historyHref: String
    /// The product's transactions in the ledger (shown to the roles that read it).
    let salesHref: String
    let verifyHref: String?
}

struct HistoryPage: Sendable {
    let chrome: ConsoleChrome
    let app: String
    let productID: String
    let actor: String
    let since: String
    let until: String
    let actions: [ConsoleOption]
    let kinds: [ConsoleOption]
    let states: [ConsoleOption]
    let oldestFirst: Bool
    let events: [TimelineEvent]
    let pager: ConsolePager
    let verifyHref: String?
    let notice: ConsoleNotice?
}

struct ChainRow: Sendable {
    let chain: String
    let events: Int
    let verified: Bool
    let lastHash: String?
    let brokenAt: String?
    let problem: String?
    let expectedHash: String?
    let foundHash: String?
}

struct VerifyPage: Sendable {
    let chrome: ConsoleChrome
    let app: String?
    let chains: [ChainRow]
    let allVerified: Bool
    let empty: Bool
}

struct KeyRow: Sendable {
    let id: String
    let name: String
    let role: String
    let apps: String
    let createdAt: String
    let expiresAt: String?
    let revokedAt: String?
    let active: Bool
    let isCaller: Bool
    let revokeHref: String
}

struct KeysPage: Sendable {
    let chrome: ConsoleChrome
    let keys: [KeyRow]
    let roles: [ConsoleOption]
    let notice: ConsoleNotice?
    /// A key just made: its token, shown this once.
    let created: CreatedKey?

    struct CreatedKey: Sendable {
        let name: String
        let role: String
        let token: String
    }
}

struct LifecyclePage: Sendable {
    let chrome: ConsoleChrome
    let diagram: LifecycleDiagram
}
