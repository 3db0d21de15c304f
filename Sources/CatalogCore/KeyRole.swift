/// The role of an API key, which fixes what it may do.
public enum KeyRole: String, CaseIterable, Sendable, Codable {
    case admin
    case developer
    case reviewer
    case auditor

    /// What the role may do, outside the review actions (which `Transition.role` decides).
    public var permissions: Set<Permission> {
        switch self {
        case .admin: Set(Permission.allCases)
        case .developer: [.readCatalog, .editCatalog, .readHistory, .importCatalog, .exportCatalog]
        case .reviewer: [.readCatalog, .readHistory]
        case .auditor: [.readCatalog, .readHistory, .verifyHistory, .exportCatalog]
        }
    }

    /// Whether the role may do `permission`.
    public func may(_ permission: Permission) -> Bool { permissions.contains(permission) }

    /// Whether the role may take `action`: its own role's actions, and every action for an admin.
    public func may(_ action: ReviewAction) -> Bool {
        self == .admin || Transition.named(action).role == self
    }
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
}
