import Hummingbird

/// The two routes that take purchase proofs, found by method and path before routing: their bodies have limits
/// of their own, and App Store notifications come without a key.
enum PurchaseRoute: Equatable {
    /// `POST /v1/apps/{bundleId}/purchases`: a signed transaction (a few KB) or an app receipt (rarely over
    /// 100 KB).
    case purchase
    /// `POST /v1/apps/{bundleId}/notifications/app-store`: a signed payload, under 16 KB from Apple.
    case appStoreNotification

    init?(_ request: Request) {
        guard request.method == .post else { return nil }
        let path = request.uri.path
        guard path.hasPrefix("/v1/apps/") else { return nil }
        let rest = path.dropFirst("/v1/apps/".count)
        guard let slash = rest.firstIndex(of: "/"), slash > rest.startIndex else { return nil }
        switch rest[slash...] {
        case "/purchases": self = .purchase
        case "/notifications/app-store": self = .appStoreNotification
        default: return nil
        }
    }

    /// The largest body the route takes.
    var bodyLimit: Int {
        switch self {
        case .purchase: 256 << 10
        case .appStoreNotification: 64 << 10
        }
    }
}
