import CatalogCore
import Testing

/// Every action from every state (12 × 8), against the table of DESIGN.md written out here by hand, so that
/// a change to `Transition.table` that strays from the design fails.
@Suite("Transition table")
struct TransitionTableTests {
    /// DESIGN.md "Transitions": the state each action leads to from each state it is allowed in. Destinations
    /// that depend on the product are spelled out for the fixtures: a first submission comes from
    /// APPROVED_BY_DEVELOPER and the product is cleared for sale.
    static let expected: [ReviewAction: [ReviewState: ReviewState]] = [
        .approve: [.pendingDeveloperApproval: .approvedByDeveloper],
        .submit: [.approvedByDeveloper: .waitingForReview],
        .withdraw: [.waitingForReview: .approvedByDeveloper],
        .startReview: [.waitingForReview: .inReview],
        .accept: [.inReview: .readyForSale],
        .requestChanges: [.inReview: .developerActionRequired],
        .reject: [.inReview: .rejected],
        .resubmit: [.developerActionRequired: .waitingForReview],
        .cancelChange: [.developerActionRequired: .readyForSale],
        .submitChange: [.readyForSale: .waitingForReview, .developerRemovedFromSale: .waitingForReview],
        .removeFromSale: [.readyForSale: .developerRemovedFromSale],
        .restoreToSale: [.developerRemovedFromSale: .readyForSale],
    ]

    static let reviewerActions: Set<ReviewAction> = [.startReview, .accept, .requestChanges, .reject]

    static var cases: [(ReviewAction, ReviewState)] {
        ReviewAction.allCases.flatMap { action in ReviewState.allCases.map { (action, $0) } }
    }

    @Test("there are 12 actions and 8 states")
    func counts() {
        #expect(ReviewAction.allCases.count == 12)
        #expect(ReviewState.allCases.count == 8)
        #expect(Transition.table.count == 12)
        #expect(Set(Transition.table.map(\.action)) == Set(ReviewAction.allCases))
    }

    @Test("each action from each state is allowed or refused exactly as the design says", arguments: cases)
    func actionFromState(action: ReviewAction, state: ReviewState) throws {
        var product = try Fixtures.product(in: state)
        // The guards of cancel_change and submit_change need a live revision and a differing draft; give
        // every product that could have them one, so that only the state decides.
        if state == .developerActionRequired {
            product = try Fixtures.product(in: .readyForSale)
            product = try product.applying(ProductEdit(reviewNote: "changed"), in: Fixtures.app, at: Fixtures.now)!.product
            for step in [ReviewAction.submitChange, .startReview, .requestChanges] {
                product = try product.performing(step, by: .admin, reason: "because", in: Fixtures.app, at: Fixtures.now)
            }
        } else if state == .readyForSale || state == .developerRemovedFromSale {
            product = try product.applying(ProductEdit(reviewNote: "changed"), in: Fixtures.app, at: Fixtures.now)!.product
        }
        let role: KeyRole = Self.reviewerActions.contains(action) ? .reviewer : .developer
        let result = Fixtures.attempt(action, on: product, by: role)
        if let destination = Self.expected[action]?[state] {
            let moved = try result.get()
            #expect(moved.state == destination)
            #expect(moved.version == product.version + 1)
        } else {
            guard case .failure(.invalidTransition(let refusal)) = result else {
                Issue.record("\(action.rawValue) from \(state.rawValue) should be refused, got \(result)")
                return
            }
            #expect(refusal.state == state)
            #expect(!refusal.allowedActions.contains(action))
            #expect(refusal.allowedActions == product.allowedActions(for: role))
        }
    }

    @Test("the state changes the database enforces are the table's, flattened, plus the revocation by edit")
    func flattened() {
        #expect(StateChange.all.count == 19)
        #expect(StateChange.all.contains(StateChange(cause: "edit", from: .approvedByDeveloper,
                                                     to: .pendingDeveloperApproval, role: .developer)))
        for (action, moves) in Self.expected {
            for (from, to) in moves {
                let role: KeyRole = Self.reviewerActions.contains(action) ? .reviewer : .developer
                #expect(StateChange.all.contains(StateChange(cause: action.rawValue, from: from, to: to, role: role)))
            }
        }
    }
}
