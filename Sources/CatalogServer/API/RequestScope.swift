import CatalogCore

/// What a request carries through the layers that do not see its context: the generated OpenAPI handlers
/// receive only their typed input, so the middlewares put the caller's key and the request id here.
enum RequestScope {
    /// The API key that authenticated the request, if any.
    @TaskLocal static var key: APIKey?
    /// The request's id, echoed in `X-Request-Id` and written into history.
    @TaskLocal static var requestID: String?
}

/// A request without a valid key where one is needed.
struct Unauthenticated: Error {
    let reason: String
}

/// The checks every handler makes about who is calling.
enum Access {
    /// The caller's key, whatever its role: no key is 401.
    static func authenticated() throws -> APIKey {
        guard let key = RequestScope.key else {
            throw Unauthenticated(reason: "send Authorization: Bearer <key>")
        }
        return key
    }

    /// The caller's key, if it may do `permission`: no key is 401, a role without it is 403.
    static func require(_ permission: Permission) throws -> APIKey {
        let key = try authenticated()
        guard key.role.may(permission) else {
            throw CatalogError.forbidden("a \(key.role.rawValue) key may not \(permission.sentence)")
        }
        return key
    }

    /// Who made a change, for history.
    static func actor(_ key: APIKey) -> Actor { key.actor }
}

extension Permission {
    /// What the permission allows, for error messages.
    var sentence: String {
        switch self {
        case .readCatalog: "read the catalog"
        case .editCatalog: "create, edit or delete products and subscription groups"
        case .manageApps: "create or edit apps"
        case .manageKeys: "manage API keys"
        case .readHistory: "read the history"
        case .verifyHistory: "verify the history"
        case .importCatalog: "import catalogs"
        case .exportCatalog: "export catalogs"
        case .submitPurchases: "submit purchases"
        case .readOwnSubmissions: "read its own submissions"
        case .readPurchases: "read purchases and transactions"
        case .retryPurchases: "retry submissions"
        case .manageStoreSettings: "read or change store settings"
        case .makeAccountTokens: "make account tokens"
        case .readAccounts: "read accounts"
        case .readSignals: "read signals"
        case .manageWebhooks: "manage webhooks"
        }
    }
}
