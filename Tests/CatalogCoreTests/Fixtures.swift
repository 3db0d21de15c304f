import CatalogCore
import Foundation

/// Products in every state, complete for their type, for the lifecycle tests.
enum Fixtures {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let groupID = UUID(uuidString: "6f3a93ab-0000-4000-8000-000000000001")!
    static let app = App(bundleID: "com.example.app", name: "Example", newsstand: true, primaryLocale: "en-US",
                         createdAt: now, updatedAt: now)
    static let english = Localization(locale: "en-US", displayName: "Gold Coins", description: "A pile of coins")

    /// A product of `type`, complete for approval, created in PENDING_DEVELOPER_APPROVAL.
    static func newProduct(_ type: PurchaseType = .consumable, id: String = "coins.100") throws -> Product {
        var fields = ProductEdit(referenceName: "Ref \(id)", localizations: [english])
        if type.isPaid { fields.price = Price(currency: "USD", amount: "0.99") }
        if type.isGroupedSubscription {
            fields.subscriptionGroupID = groupID
            fields.level = 1
            fields.duration = .oneMonth
        }
        return try Product.create(NewProduct(productID: id, type: type, fields: fields), in: app, at: now)
    }

    /// The actions that lead from creation to `state`, by the role each needs.
    static let paths: [ReviewState: [ReviewAction]] = [
        .pendingDeveloperApproval: [],
        .approvedByDeveloper: [.approve],
        .waitingForReview: [.approve, .submit],
        .inReview: [.approve, .submit, .startReview],
        .developerActionRequired: [.approve, .submit, .startReview, .requestChanges],
        .readyForSale: [.approve, .submit, .startReview, .accept],
        .rejected: [.approve, .submit, .startReview, .reject],
        .developerRemovedFromSale: [.approve, .submit, .startReview, .accept, .removeFromSale],
    ]

    /// A product of `type` brought to `state` through the lifecycle (as an admin, who may take every action).
    static func product(in state: ReviewState, _ type: PurchaseType = .consumable) throws -> Product {
        var product = try newProduct(type)
        for action in paths[state]! {
            product = try product.performing(action, by: .admin, reason: "because", in: app, at: now)
        }
        precondition(product.state == state)
        return product
    }

    /// The product after `action` by `role`, or the error it was refused with.
    static func attempt(_ action: ReviewAction, on product: Product, by role: KeyRole, reason: String? = "because")
        -> Result<Product, CatalogError>
    {
        Result { () throws(CatalogError) -> Product in
            try product.performing(action, by: role, reason: reason, in: app, at: now)
        }
    }
}
