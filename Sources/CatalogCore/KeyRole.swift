/// The role of an API key, which fixes what it may do.
public enum KeyRole: String, CaseIterable, Sendable, Codable {
    case admin
    case developer
    case reviewer
    case auditor
    /// A key that ships inside a client app, and is therefore public: limited to exactly one app, it may submit
    /// purchases and read the submissions it made itself, and nothing else.
    case client

    /// What the role may do, outside the review actions (which `Transition.role` decides).
    public var permissions: Set<Permission> {
        switch self {
        case .admin: Set(Permission.allCases)
        case .developer:
            [.readCatalog, .editCatalog, .readHistory, .importCatalog, .exportCatalog, .readPurchases, .retryPurchases,
             .makeAccountTokens, .readAccounts, .readSignals]
        case .reviewer: [.readCatalog, .readHistory]
        case .auditor: [.readCatalog, .readHistory, .verifyHistory, .exportCatalog, .readPurchases, .readSignals]
        case .client: [.submitPurchases, .readOwnSubmissions]
        }
    }

    /// Whether the role may do `permission`.
    public func may(_ permission: Permission) -> Bool { permissions.contains(permission) }

    /// Whether the role may take `action`: its own role's actions, and every action for an admin.
    public func may(_ action: ReviewAction) -> Bool {
        self == .admin || Transition.named(action).role == self
    }

    /// Whether a key of this role must be limited to exactly one app (the database refuses any other).
    public var needsExactlyOneApp: Bool { self == .client }
}

/// One thing a key may be allowed to do.
public enum Permission: String, CaseIterable, Sendable {
    /// Read apps, groups, products and their per-product history.
    case readCatalog
    /// Create, edit and delete products and subscription groups.
    case editCatalog
    /// Create and edit apps.
    case manageApps
    /// Create, list and revoke API keys.
    case manageKeys
    /// Query the whole history.
    case readHistory
    /// Recompute the history's hash chain.
    case verifyHistory
    /// Import whole catalogs from files.
    case importCatalog
    /// Export whole catalogs as files.
    case exportCatalog
    /// Submit what StoreKit returned after a purchase (signed transactions, receipts).
    case submitPurchases
    /// Read the submissions the key made itself, and nothing else of purchases.
    case readOwnSubmissions
    /// Read every submission and the ledger of transactions: lists, summaries, exports.
    case readPurchases
    /// Make a retrying or failed submission due now.
    case retryPurchases
    /// Read and change an app's store settings (the shared secret is never shown, even to this).
    case manageStoreSettings
    /// Make the tokens of an app's accounts from the accounts themselves (the app's backend does, never the app).
    case makeAccountTokens
    /// Read what one account owns and its transactions.
    case readAccounts
    /// Read the signals of irregular activity and refunds.
    case readSignals
    /// Create, list and delete webhook endpoints, see their deliveries and replay them (admin only).
    case manageWebhooks
}
