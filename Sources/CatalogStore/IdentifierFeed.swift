import CatalogCore
import PostgresNIO

/// A product on sale, as the public identifier list needs it.
public struct OnSaleProduct: Sendable, Hashable {
    public let productID: String
    public let type: PurchaseType
}

/// What the public product-identifier lists are made from, and the notifications that say when to remake
/// one (migration 0005 sends them in the transaction of every change that alters a list).
public struct IdentifierFeed: Sendable {
    /// The channel the database notifies, with the app's bundle id as payload.
    public static let channel = "product_identifiers"

    let database: Database

    /// The products on sale of every app (apps without any have an empty list), in byte order.
    public func all() async throws -> [String: [OnSaleProduct]] {
        try await load(nil)
    }

    /// The products on sale of one app, or `nil` when there is no such app.
    public func app(_ bundleID: String) async throws -> [OnSaleProduct]? {
        try await load(bundleID)[bundleID]
    }

    private func load(_ bundleID: String?) async throws -> [String: [OnSaleProduct]] {
        try await database.translatingErrors {
            let rows = try await database.query("""
                SELECT a.bundle_id, p.product_id, p.type::text
                FROM apps a LEFT JOIN products p ON p.app = a.bundle_id AND p.on_sale
                WHERE \(bundleID)::text IS NULL OR a.bundle_id = \(bundleID)
                ORDER BY a.bundle_id, p.product_id
                """)
            var lists: [String: [OnSaleProduct]] = [:]
            for try await (app, productID, type) in rows.decode((String, String?, String?).self) {
                var list = lists[app, default: []]
                if let productID, let type = type.flatMap(PurchaseType.init(rawValue:)) {
                    list.append(OnSaleProduct(productID: productID, type: type))
                }
                lists[app] = list
            }
            return lists
        }
    }

    /// Listens for changes until cancelled or the connection fails (then it throws, and the caller
    /// listens again): `listening` runs once the subscription is in place, so that whatever it reads
    /// cannot miss a change; `changed` runs with each changed app's bundle id.
    public func listen(listening: @Sendable () async throws -> Void,
                       changed: @Sendable (String) async -> Void) async throws {
        try await database.listen(on: Self.channel, listening: listening, notified: changed)
    }
}

extension Database {
    public var identifiers: IdentifierFeed { IdentifierFeed(database: self) }
}
