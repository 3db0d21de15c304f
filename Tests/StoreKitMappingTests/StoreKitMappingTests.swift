import CatalogCore
import CatalogTestSupport
import Foundation
import StoreKitConfiguration
import Testing

@testable import StoreKitMapping

/// The mapping between StoreKit files and the catalog, without a database: plans, paths, round trips.
@Suite("StoreKit mapping")
struct StoreKitMappingTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let app = App(bundleID: "com.example.app", name: "Example", createdAt: now, updatedAt: now)
    static let empty = CatalogSnapshot(app: app, groups: [], products: [], reservedProductIDs: [])

    /// What each fixture holds: products per type, groups, catalog localizations, blank localizations kept
    /// for the export only, and warnings.
    struct Counts: Equatable, CustomStringConvertible {
        var consumable = 0, nonConsumable = 0, autoRenewable = 0, nonRenewing = 0
        var groups = 0, localizations = 0, kept = 0, warnings = 0

        var description: String {
            "C\(consumable) NC\(nonConsumable) AR\(autoRenewable) NR\(nonRenewing) groups \(groups) "
                + "localizations \(localizations) kept \(kept) warnings \(warnings)"
        }
    }

    static let expected: [StoreKitFixture: Counts] = [
        // Two groups; "Pro Annual" has empty descriptions in both its localizations.
        .cisum: Counts(consumable: 3, nonConsumable: 3, autoRenewable: 4, nonRenewing: 3, groups: 2, localizations: 15,
                       kept: 2, warnings: 2),
        // One consumable whose only localization is blank.
        .glagolitsa: Counts(consumable: 1, kept: 1, warnings: 1),
        .backyardBirds: Counts(consumable: 6, autoRenewable: 3, groups: 1, localizations: 9),
        // Monthly and yearly share groupNumber 1: the yearly one is imported as level 2.
        .foodTruck: Counts(nonConsumable: 1, autoRenewable: 2, groups: 1, localizations: 6, warnings: 1),
        .leftPocket: Counts(nonConsumable: 1, autoRenewable: 8, groups: 2, localizations: 9),
        // Seven locales everywhere, 50-character French subscription descriptions.
        .joodle: Counts(nonConsumable: 2, autoRenewable: 2, groups: 1, localizations: 28),
        // Formats 1.0 and 1.1: blank localizations everywhere, two subscriptions of groupNumber 1.
        .revenueCatSwiftExample: Counts(nonConsumable: 1, autoRenewable: 2, groups: 1, kept: 3, warnings: 4),
        .revenueCatLegacyExample: Counts(nonConsumable: 1, autoRenewable: 2, groups: 1, kept: 3, warnings: 4),
        .storeKitTesting: Counts(autoRenewable: 2, groups: 1, localizations: 2, warnings: 1),
        // Four groups, ties in two of them, one blank localization.
        .purchaseTester: Counts(consumable: 1, nonConsumable: 1, autoRenewable: 9, groups: 4, localizations: 14, kept: 1,
                                warnings: 6),
    ]

    static func counts(_ plan: ImportPlan) -> Counts {
        var counts = Counts()
        for item in plan.products {
            switch item.product.type {
            case .consumable: counts.consumable += 1
            case .nonConsumable: counts.nonConsumable += 1
            case .autoRenewableSubscription: counts.autoRenewable += 1
            case .nonRenewingSubscription: counts.nonRenewing += 1
            case .freeSubscription: break
            }
            counts.localizations += item.product.content.localizations.count
        }
        counts.groups = plan.groups.count
        counts.kept = plan.warnings.filter { $0.rule == "blank" }.count
        counts.warnings = plan.warnings.count
        return counts
    }

    static func plan(_ data: Data, into snapshot: CatalogSnapshot = empty) throws -> ImportPlan {
        try StoreKitImporter.plan(file: data, currency: "USD", into: snapshot, at: now)
    }

    /// The catalog an import would leave, as an export reads it.
    static func source(_ plan: ImportPlan, app: App = app) -> ExportSource {
        ExportSource(app: app, groups: plan.groups.map { .init(group: $0.group, storekit: $0.storekit) },
                     products: plan.products.map { .init(product: $0.product, storekit: $0.storekit) },
                     document: plan.document)
    }

    /// The problems of a refused file, as `path: message` and `path:rule`.
    static func problems(_ data: Data, into snapshot: CatalogSnapshot = empty) -> [FieldProblem] {
        do {
            _ = try plan(data, into: snapshot)
            return []
        } catch CatalogError.validationFailed(let problems) {
            return problems
        } catch {
            return [FieldProblem(field: "?", rule: "?", message: "\(error)")]
        }
    }

    @Test("every fixture plans: products per type, groups, localizations", arguments: StoreKitFixture.allCases)
    func plansEveryFixture(_ fixture: StoreKitFixture) throws {
        let plan = try Self.plan(try fixture.data)
        #expect(Self.counts(plan) == Self.expected[fixture])
        #expect(plan.products.allSatisfy { $0.outcome == .create && $0.product.state == .pendingDeveloperApproval })
        #expect(plan.groups.allSatisfy { $0.isNew })
    }

    @Test("import then export gives every fixture back byte for byte", arguments: StoreKitFixture.allCases)
    func roundTripsEveryFixture(_ fixture: StoreKitFixture) throws {
        let original = try fixture.data
        let export = try StoreKitExporter.export(Self.source(try Self.plan(original)), revision: .draft)
        #expect(export.skipped.isEmpty)
        #expect(String(decoding: export.data, as: UTF8.self) == (try fixture.exportText))
        #expect(try StoreKitJSON(parsing: export.data).isEquivalent(to: StoreKitJSON(parsing: original)))
    }

    @Test("a minified file is read as well, and exported as Xcode writes it")
    func minified() throws {
        let original = try StoreKitJSON(parsing: try StoreKitFixture.leftPocket.data)
        let minified = Data(XcodeJSONWriter.compactString(for: original).utf8)
        let export = try StoreKitExporter.export(Self.source(try Self.plan(minified)), revision: .draft)
        #expect(export.data == (try StoreKitFixture.leftPocket.data))
    }

    @Test("the mapping: en_US to en-US, groupNumber to level, period to duration, exact prices, offers")
    func mapping() throws {
        let plan = try Self.plan(try StoreKitFixture.foodTruck.data)
        let monthly = try #require(plan.products.first { $0.product.productID == "socialfeedplus.monthly" }?.product)
        let yearly = try #require(plan.products.first { $0.product.productID == "socialfeedplus.yearly" }?.product)
        #expect(monthly.type == .autoRenewableSubscription && monthly.content.level == 1 && monthly.content.duration == .oneMonth)
        #expect(yearly.content.level == 2 && yearly.content.duration == .oneYear)
        #expect(monthly.content.subscriptionGroupID == plan.groups[0].group.id && plan.groups[0].group.referenceName == "Social Feed+")
        #expect(monthly.content.localizations.map(\.locale) == ["en-US", "ar"])
        #expect(monthly.price == Price(currency: "USD", amount: "4.99"))
        #expect(monthly.introductoryOffer == IntroductoryOffer(paymentMode: .payAsYouGo, period: .oneMonth, numberOfPeriods: 3,
                                                               amount: "2.49"))
        #expect(yearly.introductoryOffer == IntroductoryOffer(paymentMode: .payUpFront, period: .threeMonths, amount: "8.99"))
        let tie = try #require(plan.warnings.first)
        #expect(tie.field == "subscriptionGroups[0].subscriptions[1].groupNumber" && tie.rule == "levelMoved")
        // A stale displayPrice on a free offer is no amount; family sharing and non-ASCII names come through.
        let cisum = try Self.plan(try StoreKitFixture.cisum.data)
        let annual = try #require(cisum.products.first { $0.product.productID == "com.coffic.netto.annual" }?.product)
        #expect(annual.introductoryOffer == IntroductoryOffer(paymentMode: .freeTrial, period: .threeMonths))
        #expect(cisum.products.contains { $0.product.referenceName == "专业版1年" && $0.product.price?.amount == "79" })
        let birds = try Self.plan(try StoreKitFixture.backyardBirds.data)
        #expect(birds.products.first { $0.product.productID == "pass.family" }?.product.content.familyShareable == true)
    }

    @Test("an invalid file is refused whole, with every problem at its path: the format's and the catalog's")
    func invalidFile() throws {
        var file = try StoreKitJSON(parsing: try StoreKitFixture.backyardBirds.data)
        file = file.replacing([.key("products"), .index(0), .key("type")], with: "AutoRenewable")
        file = file.replacing([.key("products"), .index(1), .key("localizations"), .index(0), .key("displayName")],
                              with: .string(String(repeating: "n", count: 31)))
        file = file.replacing([.key("products"), .index(3), .key("productID")], with: "pellet.box")
        file = file.replacing([.key("subscriptionGroups"), .index(0), .key("subscriptions"), .index(0),
                               .key("recurringSubscriptionPeriod")], with: "P2W")
        file = file.replacing([.key("subscriptionGroups"), .index(0), .key("subscriptions"), .index(2),
                               .key("localizations"), .index(0), .key("displayName")],
                              with: .string(String(repeating: "p", count: 31)))
        file = file.replacing([.key("subscriptionGroups"), .index(0), .key("subscriptions"), .index(1),
                               .key("displayPrice")], with: "0")
        let problems = Self.problems(XcodeJSONWriter.data(for: file))
        let found = Set(problems.map(\.description))
        #expect(found.contains { $0.hasPrefix("products[0].type: unknown product type \"AutoRenewable\"") })
        #expect(found.contains("products[1].localizations[0].displayName: 31 characters, at most 30"))
        #expect(found.contains { $0.hasPrefix("products[3].productID: duplicate productID \"pellet.box\"") })
        #expect(found.contains { $0.hasPrefix("subscriptionGroups[0].subscriptions[0].recurringSubscriptionPeriod: ") })
        #expect(found.contains("subscriptionGroups[0].subscriptions[2].localizations[0].displayName: 31 characters, at most 30"))
        #expect(found.contains { $0.hasPrefix("subscriptionGroups[0].subscriptions[1].displayPrice: must be above zero") })
        #expect(problems.count == 6, "\(problems)")
    }

    @Test("paths name the file's localization even after blank ones, and the file's field names")
    func pathsAfterBlankLocalizations() throws {
        var file = try StoreKitJSON(parsing: try StoreKitFixture.cisum.data)
        // Pro Annual: two blank localizations, then one too long for a subscription (56 > 55).
        let annual: [StoreKitJSONPath.Component] = [.key("subscriptionGroups"), .index(0), .key("subscriptions"), .index(1)]
        let localizations = try #require(file[annual + [.key("localizations")]]?.arrayValue)
        file = file.replacing(annual + [.key("localizations")], with: .array(localizations + [
            ["locale": "fr_FR", "displayName": "Pro annuel", "description": .string(String(repeating: "d", count: 56))],
        ]))
        file = file.replacing(annual + [.key("introductoryOffer"), .key("subscriptionPeriod")], with: "P5D")
        file = file.replacing(annual + [.key("groupNumber")], with: 20_000)
        let found = Set(Self.problems(XcodeJSONWriter.data(for: file)).map(\.description))
        #expect(found == [
            "subscriptionGroups[0].subscriptions[1].localizations[2].description: 56 characters, at most 55",
            "subscriptionGroups[0].subscriptions[1].introductoryOffer.subscriptionPeriod: \"P5D\" is not one of P3D, P1W, P2W, P1M, P2M, P3M, P6M, P1Y",
            "subscriptionGroups[0].subscriptions[1].groupNumber: must be between 1 and 10000",
        ])
    }

    @Test("not JSON at all is its own error, with the line and column")
    func notJSON() {
        #expect(throws: StoreKitFileNotJSON.self) { try Self.plan(Data("{\"products\": [".utf8)) }
    }

    @Test("a bad currency is reported once")
    func badCurrency() throws {
        #expect(throws: CatalogError.validationFailed([FieldProblem(
            field: "currency", rule: "pattern", message: "must be an ISO 4217 currency code of three uppercase letters")])) {
            try StoreKitImporter.plan(file: try StoreKitFixture.backyardBirds.data, currency: "usd", into: Self.empty, at: Self.now)
        }
    }

    @Test("against a catalog: unchanged, conflict, reserved; a reference name that is taken")
    func againstCatalog() throws {
        let other = try Product.create(NewProduct(productID: "other", type: .consumable,
                                                  fields: ProductEdit(referenceName: "Golden Acorn")), in: Self.app, at: Self.now)
        let taken = CatalogSnapshot(app: Self.app, groups: [], products: [other], reservedProductIDs: ["other"])
        #expect(Self.problems(try StoreKitFixture.backyardBirds.data, into: taken).map(\.description) == [
            "products[2].referenceName: \"Golden Acorn\" is the referenceName of the app's product other",
        ])

        // After an import: pellet.box was edited in the catalog, nectar.cup was deleted (its id stays reserved).
        let first = try Self.plan(try StoreKitFixture.backyardBirds.data)
        var products = first.products.map(\.product)
        let box = try #require(products.firstIndex { $0.productID == "pellet.box" })
        products[box] = try #require(try products[box].applying(ProductEdit(price: Price(currency: "USD", amount: "4.99")),
                                                               in: Self.app, at: Self.now)?.product)
        products.removeAll { $0.productID == "nectar.cup" }
        let plan = try Self.plan(try StoreKitFixture.backyardBirds.data, into: CatalogSnapshot(
            app: Self.app, groups: first.groups.map(\.group), products: products,
            reservedProductIDs: Set(first.products.map(\.product.productID))))
        let outcomes = Dictionary(uniqueKeysWithValues: plan.products.map { ($0.product.productID, $0.outcome) })
        #expect(outcomes["pellet.single"] == .unchanged && outcomes["pass.premium"] == .unchanged)
        #expect(outcomes["pellet.box"] == .conflict && outcomes["nectar.cup"] == .conflict)
        #expect(plan.products.first { $0.product.productID == "pellet.box" }?.reason == "already in the catalog with another price")
        #expect(plan.products.first { $0.product.productID == "nectar.cup" }?.reason
            == "was used before in this app (the product was deleted) and stays reserved")
        #expect(plan.groups.allSatisfy { !$0.isNew } && plan.conflicts.count == 2 && plan.creations.isEmpty)
    }

    @Test("a new subscription may not take a level held in an existing group")
    func levelTaken() throws {
        let group = SubscriptionGroup(bundleID: Self.app.bundleID, referenceName: "Backyard Birds Pass")
        let holder = try Product.create(NewProduct(productID: "pass.old", type: .autoRenewableSubscription, fields: ProductEdit(
            referenceName: "Old pass", subscriptionGroupID: group.id, level: 1, duration: .oneMonth)), in: Self.app, at: Self.now)
        let snapshot = CatalogSnapshot(app: Self.app, groups: [group], products: [holder], reservedProductIDs: ["pass.old"])
        #expect(Self.problems(try StoreKitFixture.backyardBirds.data, into: snapshot).map(\.description) == [
            "subscriptionGroups[0].subscriptions[2].groupNumber: level 1 of the group \"Backyard Birds Pass\" is held by the app's product pass.old",
        ])
    }

    @Test("export writes the catalog's changes into the file's objects and keeps the rest")
    func exportOfChanges() throws {
        let plan = try Self.plan(try StoreKitFixture.leftPocket.data)
        var products = plan.products
        func edit(_ id: String, _ change: ProductEdit) throws {
            let index = try #require(products.firstIndex { $0.product.productID == id })
            let item = products[index]
            let edited = try #require(try item.product.applying(change, in: Self.app, at: Self.now)?.product)
            products[index] = ImportPlan.Item(path: item.path, product: edited, outcome: item.outcome, reason: nil,
                                              storekit: item.storekit)
        }
        try edit("lp_699_1m", ProductEdit(price: Price(currency: "USD", amount: "7.49"), introductoryOffer: IntroductoryOffer(
            paymentMode: .payUpFront, period: .oneMonth, amount: "0.99")))
        try edit("lp_999_1m", ProductEdit(clear: [.introductoryOffer]))
        try edit("lp_14999_life", ProductEdit(localizations: [Localization(locale: "de-DE", displayName: "Lebenslang",
                                                                          description: "Für immer")]))
        let changed = ImportPlan(groups: plan.groups, products: products, warnings: [], document: plan.document,
                                 currency: "USD")
        let export = try StoreKitExporter.export(Self.source(changed), revision: .draft)
        let file = try StoreKitJSON(parsing: export.data)
        let group = try #require(file["subscriptionGroups"]?[0]?["subscriptions"]?.arrayValue)
        let monthly = try #require(group.first { $0["productID"] == "lp_699_1m" })
        #expect(monthly["displayPrice"] == "7.49")
        #expect(monthly["introductoryOffer"]?.isEquivalent(to: [
            "displayPrice": "0.99", "internalID": "820F745E", "numberOfPeriods": 1, "paymentMode": "payUpFront",
            "subscriptionPeriod": "P1M",
        ]) == true)
        #expect(monthly["winbackOffers"]?[0]?["offerID"] == "winbackoffer_399_1m")
        #expect(group.first { $0["productID"] == "lp_999_1m" }?["introductoryOffer"] == .null)
        let lifetime = try #require(file["products"]?[0])
        #expect(lifetime["localizations"]?.isEquivalent(to: [
            ["description": "Für immer", "displayName": "Lebenslang", "locale": "de_DE"],
        ]) == true)
        #expect(lifetime["internalID"] == (try StoreKitJSON(parsing: try StoreKitFixture.leftPocket.data))["products"]?[0]?["internalID"])
    }

    @Test("products the catalog made: stable ids, Xcode's shape; a free subscription is skipped")
    func catalogMadeProducts() throws {
        let app = App(bundleID: "com.example.news", name: "News", newsstand: true, createdAt: Self.now, updatedAt: Self.now)
        let group = SubscriptionGroup(bundleID: app.bundleID, referenceName: "Plus", createdAt: Self.now, updatedAt: Self.now)
        let english = [Localization(locale: "en-US", displayName: "Monthly", description: "Every month")]
        func make(_ id: String, _ type: PurchaseType, _ fields: ProductEdit) throws -> ExportSource.Item {
            .init(product: try Product.create(NewProduct(productID: id, type: type, fields: fields), in: app, at: Self.now),
                  storekit: nil)
        }
        let source = ExportSource(app: app, groups: [.init(group: group, storekit: nil)], products: [
            try make("free", .freeSubscription, ProductEdit(referenceName: "Free")),
            try make("plus.monthly", .autoRenewableSubscription, ProductEdit(
                referenceName: "Plus monthly", price: Price(currency: "USD", amount: "2.99"),
                introductoryOffer: IntroductoryOffer(paymentMode: .freeTrial, period: .oneWeek), localizations: english,
                subscriptionGroupID: group.id, level: 1, duration: .oneMonth)),
            try make("coins", .consumable, ProductEdit(referenceName: "Coins")),
        ], document: nil)
        let export = try StoreKitExporter.export(source, revision: .draft)
        #expect(export.skipped == [.init(productID: "free", reason: .freeSubscription), .init(productID: "coins", reason: .noPrice)])
        #expect(try StoreKitExporter.export(source, revision: .draft).data == export.data)
        let configuration = try StoreKitConfiguration(data: export.data)
        #expect(configuration.version == StoreKitFormatVersion(major: 4, minor: 0))
        let subscription = try #require(configuration.subscriptionGroups.first?.subscriptions.first)
        #expect(subscription.localizations == [StoreKitLocalization(locale: "en_US", displayName: "Monthly", description: "Every month")])
        #expect(subscription.introductoryOffer.offer?.paymentMode == .free && subscription.adHocOffers == [])
        #expect(subscription.subscriptionGroupID == configuration.subscriptionGroups[0].id)
        #expect(try StoreKitExporter.export(source, revision: .live).productCount == 0)
    }
}
