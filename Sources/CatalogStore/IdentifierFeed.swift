import CatalogCore
import PostgresNIO

/// A product on sale, as the public identifier list needs it.
public struct OnSaleProduct: Sendable, Hashable {
    public let productID: String
    public let type: PurchaseType
}

/// What the public product-identifier lists are made from. ``CatalogChanges`` says when to remake one
/// (``CatalogChanges/Notice/identifiers(app:)``, notified in the transaction of every change that alters a list).
public struct IdentifierFeed: Sendable {
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
}

extension Database {
    public var identifiers: IdentifierFeed { IdentifierFeed(database: self) }
}
