/// One row of the review lifecycle's transition table: which action moves a product from which states to
/// which, who may take it, what must hold first and what else it changes.
///
/// ``Transition/table`` is the only place in Swift where the lifecycle is written down; handlers and the store
/// ask it. The database keeps the same table as data (`review_transitions`) and a trigger refuses any other
/// state change, so a test compares the two.
public struct Transition: Sendable, Hashable {
    /// Where a transition leads.
    public enum Destination: Sendable, Hashable {
        /// Always this state.
        case state(ReviewState)
        /// Back to the state the submission came from (`withdraw`).
        case submissionOrigin
        /// The live state: READY_FOR_SALE when cleared for sale, else DEVELOPER_REMOVED_FROM_SALE.
        case liveState

        /// Every state this destination can be, for comparison with the database's table.
        public var possibleStates: [ReviewState] {
            switch self {
            case .state(let state): [state]
            case .submissionOrigin: Transition.submissionOrigins
            case .liveState: [.readyForSale, .developerRemovedFromSale]
            }
        }
    }

    /// A condition on the product or the request that must hold for the transition to happen.
    public enum Guard: Sendable, Hashable {
        /// The product's metadata is complete for its type (`approve`); every missing item is named.
        case complete
        /// The request carries a reason (`request_changes`, `reject`).
        case reason
        /// The product has a live revision to fall back to (`cancel_change`).
        case hasLiveRevision
        /// The draft differs from the live revision in reviewed fields (`submit_change`).
        case draftDiffersFromLive
    }

    /// What a transition changes besides the state.
    public enum Effect: Sendable, Hashable {
        /// Remember the state a submission came from, for `withdraw`; marks the product as submitted.
        case rememberSubmissionOrigin
        /// The reviewed revision becomes the live revision (`accept`).
        case publishDraft
        /// The draft is discarded in favour of the live revision (`cancel_change`).
        case discardDraft
        /// Set `clearedForSale` (the sale actions).
        case setClearedForSale(Bool)
    }

    public let action: ReviewAction
    public let from: [ReviewState]
    public let to: Destination
    public let role: KeyRole
    public let guards: [Guard]
    public let effects: [Effect]

    /// The one transition table, as DESIGN.md "Transitions" gives it.
    public static let table: [Transition] = [
        Transition(.approve, from: [.pendingDeveloperApproval], to: .state(.approvedByDeveloper),
                   role: .developer, guards: [.complete]),
        Transition(.submit, from: [.approvedByDeveloper], to: .state(.waitingForReview),
                   role: .developer, effects: [.rememberSubmissionOrigin]),
        Transition(.withdraw, from: [.waitingForReview], to: .submissionOrigin, role: .developer),
        Transition(.startReview, from: [.waitingForReview], to: .state(.inReview), role: .reviewer),
        Transition(.accept, from: [.inReview], to: .liveState, role: .reviewer, effects: [.publishDraft]),
        Transition(.requestChanges, from: [.inReview], to: .state(.developerActionRequired),
                   role: .reviewer, guards: [.reason]),
        Transition(.reject, from: [.inReview], to: .state(.rejected), role: .reviewer, guards: [.reason]),
        Transition(.resubmit, from: [.developerActionRequired], to: .state(.waitingForReview),
                   role: .developer, effects: [.rememberSubmissionOrigin]),
        Transition(.cancelChange, from: [.developerActionRequired], to: .liveState, role: .developer,
                   guards: [.hasLiveRevision], effects: [.discardDraft]),
        Transition(.submitChange, from: [.readyForSale, .developerRemovedFromSale], to: .state(.waitingForReview),
                   role: .developer, guards: [.draftDiffersFromLive], effects: [.rememberSubmissionOrigin]),
        Transition(.removeFromSale, from: [.readyForSale], to: .state(.developerRemovedFromSale),
                   role: .developer, effects: [.setClearedForSale(false)]),
        Transition(.restoreToSale, from: [.developerRemovedFromSale], to: .state(.readyForSale),
                   role: .developer, effects: [.setClearedForSale(true)]),
    ]

    /// The states a submission can come from, which `withdraw` may return to.
    public static let submissionOrigins: [ReviewState] = table
        .filter { $0.effects.contains(.rememberSubmissionOrigin) }
        .flatMap(\.from)

    /// The one state change that is not an action: editing reviewed fields of an approved product sends it
    /// back to PENDING_DEVELOPER_APPROVAL, since the approval was of other content.
    public static let approvalRevokedByEdit = (from: ReviewState.approvedByDeveloper,
                                               to: ReviewState.pendingDeveloperApproval)

    /// The row for `action`; each action has exactly one.
    public static func named(_ action: ReviewAction) -> Transition {
        guard let transition = table.first(where: { $0.action == action }) else {
            preconditionFailure("the transition table has no row for \(action)")
        }
        return transition
    }

    private init(_ action: ReviewAction, from: [ReviewState], to: Destination, role: KeyRole,
                 guards: [Guard] = [], effects: [Effect] = []) {
        self.action = action
        self.from = from
        self.to = to
        self.role = role
        self.guards = guards
        self.effects = effects
    }
}
