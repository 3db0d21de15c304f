import CatalogCore
import CatalogTestSupport
import Foundation
import StoreKitConfiguration
import Testing

@testable import StoreKitMapping

/// Real files that earlier imports refused: what is repaired (and reported, and undone by the export), what is
/// read as it is, and what the rules still refuse, with a way to import the rest.
@Suite("StoreKit repairs")
struct RepairTests {
    static func plan(_ data: Data, skipInvalid: Bool = false) throws -> ImportPlan {
        try StoreKitImporter.plan(file: data, currency: "USD", into: StoreKitMappingTests.empty, at: StoreKitMappingTests.now,
                                  skipInvalid: skipInvalid)
    }

    static func exported(_ plan: ImportPlan) throws -> String {
        String(decoding: try StoreKitExporter.export(StoreKitMappingTests.source(plan), revision: .draft).data, as: UTF8.self)
    }

    @Test("one reference name in several groups: each made unique by its group, reported, and exported as the file had it")
    func sharedNames() throws {
        let plan = try Self.plan(try StoreKitFixture.purchaseTester.data)
        #expect(plan.repairs.map { "\($0.path) \($0.to)" } == [
            "subscriptionGroups[0].subscriptions[0].referenceName monthly free trial (subscription_group)",
            "subscriptionGroups[0].subscriptions[1].referenceName monthly no trial (subscription_group)",
            "subscriptionGroups[1].subscriptions[0].referenceName annual free trial (subscription_group_2)",
            "subscriptionGroups[2].subscriptions[0].referenceName monthly no trial (subscription_group_3)",
            "subscriptionGroups[2].subscriptions[1].referenceName monthly free trial (subscription_group_3)",
            "subscriptionGroups[2].subscriptions[2].referenceName annual free trial (subscription_group_3)",
        ])
        let first = try #require(plan.repairs.first)
        #expect(first.rule == "referenceNameByGroup" && first.from == "monthly free trial" && first.message
            == "\"monthly free trial\" is also the referenceName of subscriptionGroups[2].subscriptions[1] in another group: "
            + "named after its group, \"monthly free trial (subscription_group)\"")
        // Every productId, type and price as the file has them.
        #expect(plan.products.count == 11 && plan.products.allSatisfy { $0.outcome == .create })
        let item = try #require(plan.products.first { $0.product.productID == "com.revenuecat.monthly_4.99.1_week_intro" })
        #expect(item.product.price?.amount == "4.99" && item.product.type == .autoRenewableSubscription)
        #expect(item.historyReason("imported from StoreKit file \"f.storekit\"") == "imported from StoreKit file \"f.storekit\"; "
            + "repaired: referenceName \"monthly free trial\" is also the referenceName of subscriptionGroups[2].subscriptions[1] "
            + "in another group: named after its group, \"monthly free trial (subscription_group)\"")
        #expect(try Self.exported(plan) == (try StoreKitFixture.purchaseTester.exportText))
        // Renamed in the catalog since: the export writes the catalog's name.
        var products = plan.products
        let index = try #require(products.firstIndex { $0.product.productID == item.product.productID })
        let renamed = try #require(try item.product.applying(ProductEdit(referenceName: "Monthly, trial"),
                                                             in: StoreKitMappingTests.app, at: StoreKitMappingTests.now)?.product)
        products[index] = ImportPlan.Item(path: item.path, product: renamed, outcome: .create, reason: nil, storekit: item.storekit)
        let edited = ImportPlan(groups: plan.groups, products: products, warnings: [], document: plan.document, currency: "USD")
        #expect(try Self.exported(edited).contains("\"referenceName\" : \"Monthly, trial\""))
    }

    @Test("a null reference name: named after the productId, reported, and exported as null again")
    func nullReferenceName() throws {
        let plan = try Self.plan(try StoreKitVariant.nullReferenceName.data)
        #expect(plan.repairs == [ImportPlan.Repair(
            path: "products[0].referenceName", field: "referenceName", rule: "referenceNameFromProductId", from: nil,
            to: "lifetime", message: "is null in the file: named after the productId, \"lifetime\"")])
        #expect(plan.products.first?.product.referenceName == "lifetime")
        #expect(try Self.exported(plan) == (try StoreKitVariant.nullReferenceName.exportText))
    }

    @Test("an introductory offer's empty displayPrice is no amount: a free trial imports, a paid offer is refused at its path")
    func emptyOfferPrice() throws {
        let plan = try Self.plan(try StoreKitVariant.emptyOfferPrice.data)
        #expect(plan.products[1].product.introductoryOffer == IntroductoryOffer(paymentMode: .freeTrial, period: .oneWeek))
        #expect(plan.repairs.isEmpty)
        #expect(try Self.exported(plan) == (try StoreKitVariant.emptyOfferPrice.exportText))
        let paid = try StoreKitVariant.emptyOfferPrice.text
            .replacingOccurrences(of: "\"paymentMode\" : \"free\",\n            \"subscriptionPeriod\" : \"P1W\"",
                                  with: "\"paymentMode\" : \"payUpFront\",\n            \"subscriptionPeriod\" : \"P1W\"")
        #expect(StoreKitMappingTests.problems(Data(paid.utf8)).map(\.description) == [
            "subscriptionGroups[0].subscriptions[0].introductoryOffer.displayPrice: a paid offer needs an amount",
        ])
    }

    @Test("a free non-consumable imports at price 0 (App Store Review Guideline 3.1.1)")
    func freeNonConsumable() throws {
        let plan = try Self.plan(try StoreKitVariant.freeNonConsumable.data)
        #expect(plan.products[0].product.type == .nonConsumable && plan.products[0].product.price?.amount == "0")
        #expect(try Self.exported(plan) == (try StoreKitVariant.freeNonConsumable.exportText))
    }

    @Test("skipInvalid: what the rules refuse is left out and named with its problems, the rest is planned")
    func skipInvalid() throws {
        var file = try StoreKitJSON(parsing: try StoreKitFixture.purchaseTester.data)
        guard case .object(var root) = file, case .array(var products)? = root["products"],
              case .object(var coins) = products[1], case .array(var groups)? = root["subscriptionGroups"],
              case .object(var group) = groups[3]
        else { Issue.record("the fixture changed"); return }
        coins["displayPrice"] = "0"                      // a consumable is never free
        products[1] = .object(coins)
        root["products"] = .array(products)
        group["localizations"] = [["description": "", "displayName": .string(String(repeating: "x", count: 80)),
                                   "locale": "en_US"]]   // the group's name: 80 characters, at most 75
        groups[3] = .object(group)
        root["subscriptionGroups"] = .array(groups)
        file = .object(root)
        let data = XcodeJSONWriter.data(for: file)
        #expect(StoreKitMappingTests.problems(data).map(\.field) == [
            "subscriptionGroups[3].localizations[0].displayName", "products[1].displayPrice",
        ])
        let plan = try Self.plan(data, skipInvalid: true)
        #expect(plan.skipped.map { "\($0.path) \($0.productID ?? "-") \($0.problems.map(\.rule))" } == [
            "products[1] consumable.10_coins [\"positive\"]",
            "subscriptionGroups[3].subscriptions[0] com.revenuecat.loadShedder.monthly [\"maxLength\"]",
        ])
        #expect(plan.products.count == 9 && plan.groups.count == 3 && plan.repairs.count == 6)
        // Without skipping, nothing.
        #expect(throws: CatalogError.self) { try Self.plan(data) }
    }
}
