import CatalogCore
import CatalogFiles
import Foundation
import Testing

/// Plans: what applying a file does to a catalog, by CatalogCore's rules, and what it refuses.
@Suite("Catalog plan")
struct CatalogPlanTests {
    static func plan(_ file: CatalogFile, _ snapshot: CatalogSnapshot, allowDeletions: Bool = false) throws -> CatalogPlan {
        try CatalogPlan.make(file: Array(file.yaml().utf8), for: snapshot, allowDeletions: allowDeletions, at: Catalogs.now)
    }

    static func refusals(_ plan: CatalogPlan) -> [String] { plan.refusals.map { "\($0.path):\($0.rule)" } }

    @Test("the file of a catalog plans nothing on it, whatever the products' states")
    func pulledFileIsUnchanged() throws {
        let live = try Catalogs.moved(try Catalogs.product("pro.monthly", .autoRenewableSubscription), Catalogs.toLive)
        let rejected = try Catalogs.moved(try Catalogs.product("bad"), [.approve, .submit, .startReview, .reject])
        let inReview = try Catalogs.moved(try Catalogs.product("waiting"), [.approve, .submit, .startReview])
        let snapshot = Catalogs.snapshot([live, rejected, inReview, try Catalogs.product("coins")])
        let plan = try Self.plan(CatalogFile(of: snapshot), snapshot)
        #expect(!plan.hasChanges && plan.isApplicable && plan.kept.isEmpty)
        #expect(plan.products.map(\.action) == [.unchanged, .unchanged, .unchanged, .unchanged])
        #expect(plan.groups.map(\.action) == [.unchanged])
    }

    @Test("a new app: every group and product created, as the file says")
    func createsEverything() throws {
        let source = Catalogs.snapshot([try Catalogs.product("coins"), try Catalogs.product("pro.monthly", .autoRenewableSubscription)])
        let empty = CatalogSnapshot(app: Catalogs.app, groups: [], products: [], reservedProductIDs: [])
        let plan = try Self.plan(CatalogFile(of: source), empty)
        #expect(plan.isApplicable && plan.hasChanges)
        #expect(plan.groups.map(\.action) == [.create] && plan.products.map(\.action) == [.create, .create])
        let monthly = try #require(plan.products.last?.product)
        #expect(monthly.content.subscriptionGroupID == plan.groups[0].group.id && monthly.state == .pendingDeveloperApproval)
    }

    @Test("an update, field by field: unreviewed fields reach the live revision, reviewed ones a draft, then submit_change")
    func liveAndDraft() throws {
        let live = try Catalogs.moved(try Catalogs.product("pro.monthly", .autoRenewableSubscription), Catalogs.toLive)
        let snapshot = Catalogs.snapshot([live])
        var file = CatalogFile(of: snapshot)
        file.products[0].price = Price(currency: "USD", amount: "5.99")
        file.products[0].localizations[0].displayName = "Pro Monthly Plus"
        let plan = try Self.plan(file, snapshot)
        let step = try #require(plan.products.first)
        #expect(step.action == .update && plan.isApplicable)
        #expect(step.changes.map { "\($0.field):\($0.revision.rawValue)" } == ["price:live", "localizations:draft"])
        #expect(step.followUp == [.submitChange])
        #expect(step.product.liveContent == live.liveContent && step.product.state == .readyForSale)
    }

    @Test("an edit of an approved product's reviewed fields revokes the approval; approve follows")
    func revokesApproval() throws {
        let approved = try Catalogs.moved(try Catalogs.product("coins"), [.approve])
        let snapshot = Catalogs.snapshot([approved])
        var file = CatalogFile(of: snapshot)
        file.products[0].reviewNote = "look at the new icon"
        let step = try #require(try Self.plan(file, snapshot).products.first)
        #expect(step.stateChange?.from == .approvedByDeveloper && step.stateChange?.to == .pendingDeveloperApproval)
        #expect(step.changes.map(\.revision) == [.working] && step.followUp == [.approve])
    }

    @Test("localizations in another order are no change")
    func localizationOrder() throws {
        let product = try Catalogs.product("coins", .consumable, ProductEdit(localizations: [
            Localization(locale: "en-US", displayName: "Coins", description: "Coins"),
            Localization(locale: "fr-FR", displayName: "Pièces", description: "Des pièces"),
        ]))
        let snapshot = Catalogs.snapshot([product])
        var file = CatalogFile(of: snapshot)
        file.products[0].localizations.reverse()
        #expect(try !Self.plan(file, snapshot).hasChanges)
    }

    @Test("what cannot be done is named at its path: type, state, field rules, names and levels taken, reserved ids")
    func refusalsNamed() throws {
        let inReview = try Catalogs.moved(try Catalogs.product("waiting"), [.approve, .submit, .startReview])
        let rejected = try Catalogs.moved(try Catalogs.product("bad"), [.approve, .submit, .startReview, .reject])
        let yearly = try Catalogs.product("pro.yearly", .autoRenewableSubscription, ProductEdit(level: 2))
        let snapshot = Catalogs.snapshot([inReview, rejected, try Catalogs.product("coins"), yearly], reserved: ["gone"])
        var file = CatalogFile(of: snapshot)
        func edit(_ id: String, _ change: (inout CatalogFile.Item) -> Void) {
            let index = file.products.firstIndex { $0.productID == id }!
            change(&file.products[index])
        }
        edit("waiting") { $0.localizations[0].displayName = "New name" }       // reviewed, IN_REVIEW
        edit("bad") { $0.price = Price(currency: "USD", amount: "1.99") }         // REJECTED
        edit("coins") { $0.type = .nonConsumable }                                 // a type never changes
        edit("pro.yearly") { $0.level = 1 }                                         // still free: no refusal
        file.products.append(.init(productID: "gone", type: .consumable, referenceName: "Gone"))            // reserved
        file.products.append(.init(productID: "new.one", type: .consumable, referenceName: "Ref coins"))    // taken name
        file.products.append(.init(productID: "new.two", type: .consumable, referenceName: "Two",
                                   localizations: [Localization(locale: "en-US", displayName: String(repeating: "x", count: 31),
                                                                description: "d")]))
        file.products.append(.init(productID: "pro.weekly", type: .autoRenewableSubscription, referenceName: "Weekly",
                                   subscriptionGroup: "Pro", level: 1, duration: .oneWeek))                 // level taken
        file.products.append(.init(productID: "x", type: .autoRenewableSubscription, referenceName: "X",
                                   subscriptionGroup: "Nope"))
        let plan = try Self.plan(file, snapshot)
        #expect(!plan.isApplicable)
        #expect(Set(Self.refusals(plan)) == [
            "products[1].type:immutable", "products[0]:state", "products[3]:state",
            "products[6].localizations[0].displayName:maxLength", "products[8].subscriptionGroup:exists",
            "products[4].productId:reserved", "products[5].referenceName:unique", "products[7].level:levelTaken",
        ])
        let inReviewRefusal = try #require(plan.refusals.first { $0.productID == "waiting" })
        #expect(inReviewRefusal.message == "reviewed fields (localizations) cannot be edited in IN_REVIEW (the product is IN_REVIEW)")
        #expect(plan.refusals.first { $0.productID == "new.one" }?.message
            == "\"Ref coins\" is the referenceName of the app's product coins")
    }

    @Test("left out: kept without --allow-deletions; with it, deleted if never submitted, else refused")
    func deletions() throws {
        let submitted = try Catalogs.moved(try Catalogs.product("sent"), [.approve, .submit])
        let snapshot = Catalogs.snapshot([submitted, try Catalogs.product("draft")])
        let file = CatalogFile(app: Catalogs.app.bundleID, subscriptionGroups: [.init(referenceName: "Pro",
                                                                                    localizations: Catalogs.pro.localizations)])
        let keeping = try Self.plan(file, snapshot)
        #expect(!keeping.hasChanges && keeping.isApplicable)
        #expect(keeping.kept.map(\.productID) == ["sent", "draft"] && keeping.kept.map(\.deletable) == [false, true])
        let deleting = try Self.plan(file, snapshot, allowDeletions: true)
        #expect(deleting.products.map { "\($0.product.productID):\($0.action)" } == ["draft:delete"])
        #expect(Self.refusals(deleting) == ["products:notDeletable"])
        #expect(deleting.fingerprint != keeping.fingerprint)
    }

    @Test("a file of another app is refused; a group left out stays")
    func otherApp() throws {
        let snapshot = Catalogs.snapshot([])
        let plan = try Self.plan(CatalogFile(app: "com.other"), snapshot)
        #expect(Self.refusals(plan) == ["app:app"] && plan.keptGroups == ["Pro"])
    }

    @Test("the fingerprint follows the catalog, the file and the options")
    func fingerprint() throws {
        let coins = try Catalogs.product("coins")
        let snapshot = Catalogs.snapshot([coins])
        let file = CatalogFile(of: snapshot)
        let first = try Self.plan(file, snapshot)
        #expect(try Self.plan(file, snapshot).fingerprint == first.fingerprint)
        let edited = try #require(try coins.applying(ProductEdit(referenceName: "Coins!"), in: Catalogs.app, at: Catalogs.now))
        #expect(try Self.plan(file, Catalogs.snapshot([edited.product])).fingerprint != first.fingerprint)
        var other = file
        other.products[0].referenceName = "Other"
        #expect(try Self.plan(other, snapshot).fingerprint != first.fingerprint)
        #expect(first.fingerprint.count == 64 && first.fileSHA256.count == 64)
    }

    @Test("a free non-consumable is planned; a free consumable is refused at its amount")
    func freeNonConsumable() throws {
        let file = CatalogFile(app: nil, products: [
            .init(productID: "trial", type: .nonConsumable, referenceName: "Free trial", price: Price(currency: "USD", amount: "0.00")),
            .init(productID: "free.coins", type: .consumable, referenceName: "Free coins", price: Price(currency: "USD", amount: "0")),
        ])
        let plan = try Self.plan(file, Catalogs.snapshot([], groups: []))
        #expect(Self.refusals(plan) == ["products[1].price.amount:positive"])
    }
}
