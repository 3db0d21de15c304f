import CatalogCore

/// What an import needs to know of the app's catalog: its groups (matched by reference name), its products
/// (an existing product is reported as unchanged or as a conflict, never overwritten) and the productIds it
/// has ever used (a deleted product's id stays reserved).
public struct CatalogSnapshot: Sendable {
    public let app: App
    public let groups: [SubscriptionGroup]
    public let products: [Product]
    /// Every productId the app has used, existing products' included.
    public let reservedProductIDs: Set<String>

    public init(app: App, groups: [SubscriptionGroup], products: [Product], reservedProductIDs: Set<String>) {
        self.app = app
        self.groups = groups
        self.products = products
        self.reservedProductIDs = reservedProductIDs
    }
}
