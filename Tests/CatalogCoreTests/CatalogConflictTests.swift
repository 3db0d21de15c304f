import CatalogCore
import Foundation
import Testing

/// The rules over an app's whole catalog: names, levels, the free subscription, reserved ids, groups, the limit.
@Suite("Catalog-wide rules")
struct CatalogConflictTests {
    static let group = SubscriptionGroup(bundleID: Fixtures.app.bundleID, referenceName: "Pro")

    static func product(_ id: String, _ type: PurchaseType = .consumable, name: String? = nil, level: Int? = nil,
                        group: UUID? = nil) throws -> Product {
        var fields = ProductEdit(referenceName: name ?? "Ref \(id)")
        if type == .autoRenewableSubscription {
            fields.subscriptionGroupID = group ?? Self.group.id
            fields.level = level
        }
        return try Product.create(NewProduct(productID: id, type: type, fields: fields), in: Fixtures.app, at: Fixtures.now)
    }

    @Test("the later of two products is named, an existing product's holder named as the app's")
    func namesAndLevels() throws {
        let existing = try Self.product("a", .autoRenewableSubscription, name: "Monthly", level: 1)
        let snapshot = CatalogSnapshot(app: Fixtures.app, groups: [Self.group], products: [existing],
                                       reservedProductIDs: ["a", "gone"])
        let new = [
            try Self.product("b", .autoRenewableSubscription, name: "Monthly", level: 1),
            try Self.product("c", name: "C"), try Self.product("d", name: "C"),
            try Self.product("gone"), try Self.product("e", .autoRenewableSubscription, level: 2, group: UUID()),
            try Self.product("f", .freeSubscription), try Self.product("g", .freeSubscription),
        ]
        let conflicts = snapshot.conflicts(ifProductsWere: new + [existing], groups: [Self.group])
        #expect(conflicts.map { "\($0.productID ?? "-").\($0.field):\($0.rule)" } == [
            "b.referenceName:unique", "b.level:levelTaken", "d.referenceName:unique", "gone.productId:reserved",
            "e.subscriptionGroupId:exists", "g.type:oneFreeSubscription",
        ])
        #expect(conflicts[0].message == "\"Monthly\" is the referenceName of the app's product a")
        #expect(conflicts[2].message == "\"C\" is also the referenceName of c; reference names are unique within an app")
        #expect(conflicts[2].message { "products[\($0)]" }
            == "\"C\" is also the referenceName of products[c]; reference names are unique within an app")
        #expect(conflicts[1].message == "level 1 of the group \"Pro\" is held by the app's product a")
    }

    @Test("a rejected subscription's level is free; the app holds at most 10,000 products")
    func rejectedAndLimit() throws {
        var rejected = try Self.product("a", .autoRenewableSubscription, level: 1)
        let group = Self.group
        let complete = try #require(try rejected.applying(ProductEdit(
            price: Price(currency: "USD", amount: "1"), localizations: [Fixtures.english], duration: .oneMonth),
            in: Fixtures.app, at: Fixtures.now)).product
        rejected = try [ReviewAction.approve, .submit, .startReview, .reject].reduce(complete) {
            try $0.performing($1, by: .admin, reason: "no", in: Fixtures.app, at: Fixtures.now)
        }
        let snapshot = CatalogSnapshot(app: Fixtures.app, groups: [group], products: [rejected], reservedProductIDs: ["a"])
        #expect(snapshot.conflicts(ifProductsWere: [rejected, try Self.product("b", .autoRenewableSubscription, level: 1)],
                                   groups: [group]).isEmpty)
        let many = try (0...Limits.productsPerApp).map { try Self.product("p\($0)") }
        #expect(snapshot.conflicts(ifProductsWere: many, groups: [group]).map(\.rule) == ["productLimit"])
    }

    @Test("the reviewed fields are the API's names of the reviewed content")
    func reviewedFieldNames() {
        #expect(ReviewedContent.fieldNames == ["localizations", "reviewNote", "familyShareable", "subscriptionGroupId",
                                               "level", "duration"])
    }
}
