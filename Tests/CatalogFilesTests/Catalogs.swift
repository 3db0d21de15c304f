import CatalogCore
import Foundation

/// Catalogs for the tests: an app with a group and products of each kind, brought to the states a test needs.
enum Catalogs {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let app = App(bundleID: "com.example.files", name: "Files", newsstand: false, primaryLocale: "en-US",
                         createdAt: now, updatedAt: now)
    static let pro = SubscriptionGroup(id: UUID(uuidString: "5b2c5376-64b7-4c2a-b892-e201fad2edca")!, bundleID: app.bundleID,
                                       referenceName: "Pro", localizations: [.init(locale: "en-US", name: "Pro Access")],
                                       createdAt: now, updatedAt: now)
    static let english = Localization(locale: "en-US", displayName: "100 Coins", description: "A pile of coins")

    /// A product created with `fields` (a reference name made from the id when none is given).
    static func product(_ id: String, _ type: PurchaseType = .consumable, _ fields: ProductEdit = ProductEdit())
        throws -> Product
    {
        var fields = fields
        if fields.referenceName == nil { fields.referenceName = "Ref \(id)" }
        if fields.price == nil && type.isPaid { fields.price = Price(currency: "USD", amount: "0.99") }
        if fields.localizations == nil {
            fields.localizations = [Localization(locale: "en-US", displayName: "Name \(id)", description: "About \(id)")]
        }
        if type == .autoRenewableSubscription {
            fields.subscriptionGroupID = fields.subscriptionGroupID ?? pro.id
            fields.level = fields.level ?? 1
            fields.duration = fields.duration ?? .oneMonth
        }
        return try Product.create(NewProduct(productID: id, type: type, fields: fields), in: app, at: now)
    }

    /// `product` moved through `actions` by an admin.
    static func moved(_ product: Product, _ actions: [ReviewAction]) throws -> Product {
        var product = product
        for action in actions {
            product = try product.performing(action, by: .admin, reason: "because", in: app, at: now)
        }
        return product
    }

    static let toLive: [ReviewAction] = [.approve, .submit, .startReview, .accept]

    static func snapshot(_ products: [Product], groups: [SubscriptionGroup] = [pro], reserved: Set<String> = [])
        -> CatalogSnapshot
    {
        CatalogSnapshot(app: app, groups: groups, products: products,
                        reservedProductIDs: reserved.union(products.map(\.productID)))
    }
}
