/// An app's whole catalog as read at one moment: what the rules over all of its products need (its groups, its
/// products and every productId it has used), and what a plan made from a file compares the file with.
public struct CatalogSnapshot: Sendable {
    public let app: App
    public let groups: [SubscriptionGroup]
    public let products: [Product]
    /// Every productId the app has used, existing products' included (a deleted product's id stays reserved).
    public let reservedProductIDs: Set<String>

    public init(app: App, groups: [SubscriptionGroup], products: [Product], reservedProductIDs: Set<String>) {
        self.app = app
        self.groups = groups
        self.products = products
        self.reservedProductIDs = reservedProductIDs
    }
}
