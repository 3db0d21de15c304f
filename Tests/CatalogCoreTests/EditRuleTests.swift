import CatalogCore
import Foundation
import Testing

/// Which fields may change in which state, and how an edit changes the product.
@Suite("Edit rules")
struct EditRuleTests {
    static let reviewedEdit = ProductEdit(reviewNote: "please look at the screenshot")
    static let unreviewedEdit = ProductEdit(referenceName: "Renamed", price: Price(currency: "USD", amount: "1.99"))

    @Test("reviewed fields are refused where content is under review or final", arguments: ReviewState.allCases)
    func reviewedFields(state: ReviewState) throws {
        let product = try Fixtures.product(in: state)
        let result = Result { () throws(CatalogError) in
            try product.applying(Self.reviewedEdit, in: Fixtures.app, at: Fixtures.now)
        }
        switch state {
        case .waitingForReview, .inReview, .rejected:
            guard case .failure(.conflict(_, let reported)) = result else {
                Issue.record("a reviewed edit in \(state) should conflict, got \(result)")
                return
            }
            #expect(reported == state)
        default:
            let change = try #require(try result.get())
            #expect(change.product.content.reviewNote == Self.reviewedEdit.reviewNote)
            #expect(change.product.version == product.version + 1)
        }
    }

    @Test("unreviewed fields change in every state but REJECTED, at once, live revision included",
          arguments: ReviewState.allCases)
    func unreviewedFields(state: ReviewState) throws {
        let product = try Fixtures.product(in: state)
        let result = Result { () throws(CatalogError) in
            try product.applying(Self.unreviewedEdit, in: Fixtures.app, at: Fixtures.now)
        }
        if state == .rejected {
            #expect(throws: CatalogError.self) { try result.get() }
        } else {
            let edited = try #require(try result.get()).product
            #expect(edited.referenceName == "Renamed" && edited.price?.amount == "1.99")
            #expect(edited.state == state)
            #expect(edited.liveContent == product.liveContent)
        }
    }

    @Test("editing reviewed fields of an approved product revokes the approval; unreviewed ones do not")
    func approvalRevoked() throws {
        let approved = try Fixtures.product(in: .approvedByDeveloper)
        let reviewed = try #require(try approved.applying(Self.reviewedEdit, in: Fixtures.app, at: Fixtures.now))
        #expect(reviewed.product.state == .pendingDeveloperApproval)
        #expect(reviewed.fromState == .approvedByDeveloper)
        let unreviewed = try #require(try approved.applying(Self.unreviewedEdit, in: Fixtures.app, at: Fixtures.now))
        #expect(unreviewed.product.state == .approvedByDeveloper)
    }

    @Test("a reviewed edit of a live product goes into a draft; the live revision stays")
    func draftOfLiveProduct() throws {
        let live = try Fixtures.product(in: .readyForSale)
        let edited = try #require(try live.applying(Self.reviewedEdit, in: Fixtures.app, at: Fixtures.now)).product
        #expect(edited.liveContent == live.liveContent)
        #expect(edited.draftContent?.reviewNote == Self.reviewedEdit.reviewNote)
        #expect(edited.onSale)
        #expect(edited.allowedActions(for: .developer) == [.submitChange, .removeFromSale])
    }

    @Test("an edit that changes nothing is no change: no new version")
    func noChange() throws {
        let product = try Fixtures.newProduct()
        #expect(try product.applying(ProductEdit(referenceName: product.referenceName), in: Fixtures.app,
                                     at: Fixtures.now) == nil)
    }

    @Test("once live, clearedForSale changes only through the sale actions")
    func clearedForSaleOnceLive() throws {
        let pending = try Fixtures.newProduct()
        #expect(try pending.applying(ProductEdit(clearedForSale: false), in: Fixtures.app, at: Fixtures.now)?
                    .product.clearedForSale == false)
        let live = try Fixtures.product(in: .readyForSale)
        #expect(throws: CatalogError.self) {
            try live.applying(ProductEdit(clearedForSale: false), in: Fixtures.app, at: Fixtures.now)
        }
    }

    @Test("family sharing once on cannot be turned off; consumables and free subscriptions have none")
    func familySharing() throws {
        let product = try Fixtures.newProduct(.nonConsumable)
        let shared = try #require(try product.applying(ProductEdit(familyShareable: true), in: Fixtures.app,
                                                       at: Fixtures.now)).product
        #expect(shared.content.familyShareable)
        #expect(problems(of: ProductEdit(familyShareable: false), on: shared) == ["familyShareable:cannotTurnOff"])
        for type in [PurchaseType.consumable, .freeSubscription, .nonRenewingSubscription] {
            #expect(problems(of: ProductEdit(familyShareable: true), on: try Fixtures.newProduct(type))
                        == ["familyShareable:notAllowedForType"])
        }
    }

    @Test("group, level, duration and introductory offer belong to auto-renewable subscriptions only")
    func subscriptionFields() throws {
        let edit = ProductEdit(
            introductoryOffer: IntroductoryOffer(paymentMode: .freeTrial, period: .oneWeek),
            subscriptionGroupID: Fixtures.groupID, level: 2, duration: .oneYear)
        for type in PurchaseType.allCases where type != .autoRenewableSubscription {
            #expect(problems(of: edit, on: try Fixtures.newProduct(type)) == [
                "introductoryOffer:notAllowedForType", "subscriptionGroupId:notAllowedForType",
                "level:notAllowedForType", "duration:notAllowedForType",
            ])
        }
        #expect(problems(of: edit, on: try Fixtures.newProduct(.autoRenewableSubscription)).isEmpty)
    }

    @Test("prices: above zero, but zero or above for a non-consumable (a paid app's free trial) and zero for a free subscription")
    func prices() throws {
        let zero = ProductEdit(price: Price(currency: "USD", amount: "0.00"),
                               territoryPrices: [TerritoryPrice(territory: "FRA", currency: "EUR", amount: "0")])
        for type in PurchaseType.allCases where type.priceRule == .aboveZero {
            #expect(problems(of: zero, on: try Fixtures.newProduct(type)) == ["price.amount:positive", "territoryPrices[0].amount:positive"])
        }
        #expect(PurchaseType.allCases.filter { $0.priceRule == .aboveZero }
            == [.consumable, .autoRenewableSubscription, .nonRenewingSubscription])
        #expect(problems(of: zero, on: try Fixtures.newProduct(.nonConsumable)).isEmpty)
        #expect(problems(of: ProductEdit(price: Price(currency: "USD", amount: "0")), on: try Fixtures.newProduct(.nonConsumable)).isEmpty)
        let free = try Fixtures.newProduct(.freeSubscription)
        #expect(problems(of: zero, on: free).isEmpty)
        #expect(problems(of: ProductEdit(price: Price(currency: "USD", amount: "0.99")), on: free) == ["price.amount:zero"])
    }

    @Test("a free non-consumable is complete for approval; without a price it still needs one")
    func freeNonConsumableApproval() throws {
        var fields = ProductEdit(referenceName: "Free trial", price: Price(currency: "USD", amount: "0"),
                                 localizations: [Fixtures.english])
        let free = try Product.create(NewProduct(productID: "trial", type: .nonConsumable, fields: fields), in: Fixtures.app,
                                      at: Fixtures.now)
        #expect(free.missingForApproval(in: Fixtures.app).isEmpty)
        fields.price = nil
        let unpriced = try Product.create(NewProduct(productID: "trial", type: .nonConsumable, fields: fields), in: Fixtures.app,
                                          at: Fixtures.now)
        #expect(unpriced.missingForApproval(in: Fixtures.app).map(\.message) == ["needs a price (0 for a free NON_CONSUMABLE)"])
    }

    @Test("a field both set and cleared is refused; clearing resets it")
    func clearing() throws {
        let product = try Fixtures.newProduct(.autoRenewableSubscription)
        #expect(problems(of: ProductEdit(level: 3, clear: [.level]), on: product) == ["level:setAndCleared"])
        let cleared = try #require(try product.applying(ProductEdit(clear: [.level, .price]), in: Fixtures.app,
                                                        at: Fixtures.now)).product
        #expect(cleared.content.level == nil && cleared.price == nil)
        #expect(cleared.missingForApproval(in: Fixtures.app).map(\.field) == ["price", "level"])
    }

    @Test("an edit records every changed field with old and new values")
    func changes() throws {
        let product = try Fixtures.newProduct()
        let change = try #require(try product.applying(ProductEdit(referenceName: "New name", reviewNote: "note"),
                                                       in: Fixtures.app, at: Fixtures.now))
        #expect(change.changes == [
            FieldChange(field: "referenceName", old: .string(product.referenceName), new: .string("New name")),
            FieldChange(field: "reviewNote", old: nil, new: .string("note")),
        ])
    }

    private func problems(of edit: ProductEdit, on product: Product) -> [String] {
        do {
            _ = try product.applying(edit, in: Fixtures.app, at: Fixtures.now)
            return []
        } catch .validationFailed(let problems) {
            return problems.map { "\($0.field):\($0.rule)" }
        } catch {
            return ["\(error)"]
        }
    }
}
