import Hummingbird

/// The routes of purchases and accounts found by method and path before routing: the two that take purchase
/// proofs, whose bodies have limits of their own (App Store notifications come without a key), and the one that
/// takes an account itself, whose body is never kept (not even hashed, for `Idempotency-Key`).
enum PurchaseRoute: Equatable {
    /// `POST /v1/apps/{bundleId}/purchases`: a signed transaction (a few KB) or an app receipt (rarely over
    /// 100 KB).
    case purchase
    /// `POST /v1/apps/{bundleId}/notifications/app-store`: a signed payload, under 16 KB from Apple.
    case appStoreNotification
    /// `POST /v1/apps/{bundleId}/account-tokens`: an account id, at most 512 characters.
    case accountTokens

    init?(_ request: Request) {
        guard request.method == .post else { return nil }
        let path = request.uri.path
        guard path.hasPrefix("/v1/apps/") else { return nil }
        let rest = path.dropFirst("/v1/apps/".count)
        guard let slash = rest.firstIndex(of: "/"), slash > rest.startIndex else { return nil }
        switch rest[slash...] {
        case "/purchases": self = .purchase
        case "/notifications/app-store": self = .appStoreNotification
        case "/account-tokens": self = .accountTokens
        default: return nil
        }
    }

    /// The largest body the route takes.
    var bodyLimit: Int {
        switch self {
        case .purchase: 256 << 10
        case .appStoreNotification: 64 << 10
        case .accountTokens: 16 << 10
        }
    }
}
