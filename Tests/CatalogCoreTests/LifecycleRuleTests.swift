import CatalogCore
import Foundation
import Testing

/// The guards and effects of the transitions, and who may take them.
@Suite("Lifecycle rules")
struct LifecycleRuleTests {
    @Test("a reviewer may not take developer actions, a developer may not take review actions, an auditor none")
    func roles() throws {
        let pending = try Fixtures.product(in: .pendingDeveloperApproval)
        let inReview = try Fixtures.product(in: .inReview)
        #expect(Fixtures.attempt(.approve, on: pending, by: .reviewer).isForbidden)
        #expect(Fixtures.attempt(.approve, on: pending, by: .auditor).isForbidden)
        #expect(Fixtures.attempt(.accept, on: inReview, by: .developer).isForbidden)
        #expect(Fixtures.attempt(.accept, on: inReview, by: .auditor).isForbidden)
        #expect(try Fixtures.attempt(.approve, on: pending, by: .admin).get().state == .approvedByDeveloper)
        #expect(try Fixtures.attempt(.accept, on: inReview, by: .admin).get().state == .readyForSale)
        #expect(inReview.allowedActions(for: .developer).isEmpty)
        #expect(inReview.allowedActions(for: .reviewer) == [.accept, .requestChanges, .reject])
        #expect(inReview.allowedActions(for: .auditor).isEmpty)
    }

    @Test("the role is checked before the state: a reviewer's approve of a live product is forbidden, not invalid")
    func roleBeforeState() throws {
        #expect(Fixtures.attempt(.approve, on: try Fixtures.product(in: .readyForSale), by: .reviewer).isForbidden)
    }

    @Test("approve names every missing item of each type", arguments: PurchaseType.allCases)
    func approveNamesMissing(type: PurchaseType) throws {
        let bare = try Product.create(NewProduct(productID: "p", type: type, fields: ProductEdit(referenceName: "P")),
                                      in: Fixtures.app, at: Fixtures.now)
        guard case .failure(.productIncomplete(let missing)) = Fixtures.attempt(.approve, on: bare, by: .developer) else {
            Issue.record("approve of an empty \(type) should be refused as incomplete")
            return
        }
        var expected = ["localizations"]
        if type.isPaid { expected.append("price") }
        if type == .autoRenewableSubscription { expected += ["subscriptionGroupId", "level", "duration"] }
        #expect(missing.map(\.field) == expected)
        #expect(try Fixtures.attempt(.approve, on: try Fixtures.newProduct(type), by: .developer).get().state
                == .approvedByDeveloper)
    }

    @Test("a localization in the app's primary locale is needed, not just any")
    func primaryLocale() throws {
        var product = try Fixtures.newProduct()
        product = try product.applying(ProductEdit(localizations: [Localization(locale: "fr-FR", displayName: "Pièces",
                                                                                   description: "Des pièces")]),
                                       in: Fixtures.app, at: Fixtures.now)!.product
        guard case .failure(.productIncomplete(let missing)) = Fixtures.attempt(.approve, on: product, by: .developer) else {
            Issue.record("expected incomplete")
            return
        }
        #expect(missing.map(\.rule) == ["primaryLocale"])
    }

    @Test("a free subscription outside a Newsstand app cannot be created nor approved")
    func freeSubscriptionNeedsNewsstand() throws {
        var plain = Fixtures.app
        plain.newsstand = false
        #expect(throws: CatalogError.self) {
            try Product.create(NewProduct(productID: "free", type: .freeSubscription,
                                          fields: ProductEdit(referenceName: "Free")), in: plain, at: Fixtures.now)
        }
        let free = try Fixtures.newProduct(.freeSubscription)
        guard case .failure(.productIncomplete(let missing)) = Result(catching: { () throws(CatalogError) in
            try free.performing(.approve, by: .developer, reason: nil, in: plain, at: Fixtures.now)
        }) else {
            Issue.record("expected incomplete")
            return
        }
        #expect(missing.map(\.rule) == ["newsstandOnly"])
    }

    @Test("request_changes and reject need a reason; a reason is at most 4,000 characters")
    func reasons() throws {
        let inReview = try Fixtures.product(in: .inReview)
        for action in [ReviewAction.requestChanges, .reject] {
            guard case .failure(.validationFailed(let problems)) = Fixtures.attempt(action, on: inReview, by: .reviewer,
                                                                                  reason: nil) else {
                Issue.record("\(action) without a reason should fail validation")
                continue
            }
            #expect(problems.map(\.field) == ["reason"])
        }
        #expect(Fixtures.attempt(.reject, on: inReview, by: .reviewer, reason: String(repeating: "x", count: 4_001))
                    .isValidationFailure)
        #expect(try Fixtures.attempt(.reject, on: inReview, by: .reviewer,
                                     reason: String(repeating: "x", count: 4_000)).get().state == .rejected)
    }

    @Test("withdraw returns to the state the submission came from", arguments: [
        ([ReviewAction.approve, .submit], ReviewState.approvedByDeveloper),
        ([.approve, .submit, .startReview, .requestChanges, .resubmit], .developerActionRequired),
    ])
    func withdrawReturns(path: [ReviewAction], origin: ReviewState) throws {
        var product = try Fixtures.newProduct()
        for action in path { product = try product.performing(action, by: .admin, reason: "r", in: Fixtures.app, at: Fixtures.now) }
        #expect(try Fixtures.attempt(.withdraw, on: product, by: .developer).get().state == origin)
    }

    @Test("withdrawing a change returns to the live state it left, keeping the draft")
    func withdrawChange() throws {
        for state in [ReviewState.readyForSale, .developerRemovedFromSale] {
            var product = try Fixtures.product(in: state)
            product = try product.applying(ProductEdit(reviewNote: "new"), in: Fixtures.app, at: Fixtures.now)!.product
            product = try product.performing(.submitChange, by: .developer, reason: nil, in: Fixtures.app, at: Fixtures.now)
            #expect(product.onSale == (state == .readyForSale))
            let withdrawn = try Fixtures.attempt(.withdraw, on: product, by: .developer).get()
            #expect(withdrawn.state == state)
            #expect(withdrawn.draftContent?.reviewNote == "new")
        }
    }

    @Test("accept makes the reviewed revision live, on sale when cleared and removed from sale when not")
    func acceptPublishes() throws {
        let inReview = try Fixtures.product(in: .inReview)
        let accepted = try Fixtures.attempt(.accept, on: inReview, by: .reviewer).get()
        #expect(accepted.liveContent == inReview.content)
        #expect(accepted.onSale)
        #expect(accepted.draftContent == nil)

        var notCleared = try Fixtures.newProduct()
        notCleared = try notCleared.applying(ProductEdit(clearedForSale: false), in: Fixtures.app, at: Fixtures.now)!.product
        for action in [ReviewAction.approve, .submit, .startReview] {
            notCleared = try notCleared.performing(action, by: .admin, reason: nil, in: Fixtures.app, at: Fixtures.now)
        }
        let removed = try Fixtures.attempt(.accept, on: notCleared, by: .reviewer).get()
        #expect(removed.state == .developerRemovedFromSale)
        #expect(!removed.onSale)
        #expect(removed.liveContent != nil)
    }

    @Test("a live product stays on sale as its live revision while a change waits, is reviewed or is sent back")
    func liveWhileChanging() throws {
        var product = try Fixtures.product(in: .readyForSale)
        let live = product.liveContent
        product = try product.applying(ProductEdit(reviewNote: "v2"), in: Fixtures.app, at: Fixtures.now)!.product
        #expect(product.state == .readyForSale)
        #expect(product.liveContent == live)
        for action in [ReviewAction.submitChange, .startReview, .requestChanges] {
            product = try product.performing(action, by: .admin, reason: "r", in: Fixtures.app, at: Fixtures.now)
            #expect(product.onSale)
            #expect(product.liveContent == live)
        }
        let cancelled = try Fixtures.attempt(.cancelChange, on: product, by: .developer).get()
        #expect(cancelled.state == .readyForSale)
        #expect(cancelled.content == live)
        #expect(cancelled.draftContent == nil)
    }

    @Test("cancel_change needs a live revision; submit_change needs a draft that differs")
    func revisionGuards() throws {
        let neverLive = try Fixtures.product(in: .developerActionRequired)
        guard case .failure(.invalidTransition(let refusal)) = Fixtures.attempt(.cancelChange, on: neverLive,
                                                                              by: .developer) else {
            Issue.record("cancel_change without a live revision should be refused")
            return
        }
        #expect(refusal.allowedActions == [.resubmit])
        let live = try Fixtures.product(in: .readyForSale)
        #expect(Fixtures.attempt(.submitChange, on: live, by: .developer).isInvalidTransition)
        #expect(live.allowedActions(for: .developer) == [.removeFromSale])
    }

    @Test("the sale actions set clearedForSale and move between the two live states")
    func saleActions() throws {
        let removed = try Fixtures.attempt(.removeFromSale, on: try Fixtures.product(in: .readyForSale), by: .developer).get()
        #expect(!removed.clearedForSale && !removed.onSale && removed.state == .developerRemovedFromSale)
        let restored = try Fixtures.attempt(.restoreToSale, on: removed, by: .developer).get()
        #expect(restored.clearedForSale && restored.onSale && restored.state == .readyForSale)
    }

    @Test("reject is terminal and takes a live product off sale")
    func rejectIsTerminal() throws {
        var product = try Fixtures.product(in: .readyForSale)
        product = try product.applying(ProductEdit(reviewNote: "v2"), in: Fixtures.app, at: Fixtures.now)!.product
        for action in [ReviewAction.submitChange, .startReview, .reject] {
            product = try product.performing(action, by: .admin, reason: "r", in: Fixtures.app, at: Fixtures.now)
        }
        #expect(product.state == .rejected && !product.onSale)
        #expect(product.allowedActions(for: .admin).isEmpty)
        #expect(!product.isDeletable)
    }

    @Test("only a product never submitted may be deleted")
    func deletable() throws {
        #expect(try Fixtures.product(in: .pendingDeveloperApproval).isDeletable)
        #expect(try Fixtures.product(in: .approvedByDeveloper).isDeletable)
        #expect(try !Fixtures.product(in: .waitingForReview).isDeletable)
        var withdrawn = try Fixtures.product(in: .waitingForReview)
        withdrawn = try withdrawn.performing(.withdraw, by: .developer, reason: nil, in: Fixtures.app, at: Fixtures.now)
        #expect(!withdrawn.isDeletable)
    }

    @Test("an action moves only lifecycle fields but accept and cancel_change, which move revisions; an edit moves fields")
    func lifecycleOnlyMoves() throws {
        var moves = 0
        for state in ReviewState.allCases {
            let product = try Fixtures.product(in: state)
            for action in product.allowedActions(for: .admin) {
                guard case .success(let next) = Fixtures.attempt(action, on: product, by: .admin) else { continue }
                moves += 1
                #expect(next.changesOnlyLifecycle(from: product) == ![.accept, .cancelChange].contains(action),
                        "\(action) from \(state)")
            }
        }
        #expect(moves >= 10)
        let pending = try Fixtures.product(in: .pendingDeveloperApproval)
        let renamed = try #require(try pending.applying(ProductEdit(referenceName: "Another name"), in: Fixtures.app,
                                                         at: Fixtures.now))
        #expect(!renamed.product.changesOnlyLifecycle(from: pending))
        let approved = try pending.performing(.approve, by: .admin, reason: nil, in: Fixtures.app, at: Fixtures.now)
        #expect(approved.changesOnlyLifecycle(from: pending))
        // A difference in a field that is not the lifecycle's counts, whichever field it is: here the product.
        let other = Product(bundleID: pending.bundleID, productID: "coins.200", type: pending.type, state: pending.state,
                            version: pending.version, referenceName: pending.referenceName, price: pending.price,
                            territoryPrices: pending.territoryPrices, introductoryOffer: pending.introductoryOffer,
                            clearedForSale: pending.clearedForSale, content: pending.content,
                            liveContent: pending.liveContent, submittedFrom: pending.submittedFrom,
                            everSubmitted: pending.everSubmitted, createdAt: pending.createdAt,
                            updatedAt: pending.updatedAt)
        #expect(!approved.changesOnlyLifecycle(from: other))
    }
}

extension Result where Failure == CatalogError {
    var isForbidden: Bool { if case .failure(.forbidden) = self { true } else { false } }
    var isInvalidTransition: Bool { if case .failure(.invalidTransition) = self { true } else { false } }
    var isValidationFailure: Bool { if case .failure(.validationFailed) = self { true } else { false } }
}
