/// One permitted change of a product's state, flattened from the transition table: the shape in which the
/// database keeps the table (`review_transitions`), so that the two can be compared row for row.
public struct StateChange: Sendable, Hashable, CustomStringConvertible {
    /// The action's name, or ``StateChange/editCause`` for the change an edit of reviewed fields makes.
    public let cause: String
    public let from: ReviewState
    public let to: ReviewState
    public let role: KeyRole

    /// The cause recorded for the state change an edit makes.
    public static let editCause = "edit"

    public init(cause: String, from: ReviewState, to: ReviewState, role: KeyRole) {
        self.cause = cause
        self.from = from
        self.to = to
        self.role = role
    }

    /// Every permitted state change: each action from each of its states to each state it can lead to, and
    /// the revocation of an approval by an edit.
    public static let all: Set<StateChange> = {
        var changes = Set<StateChange>()
        for transition in Transition.table {
            for from in transition.from {
                for to in transition.to.possibleStates where to != from {
                    changes.insert(StateChange(cause: transition.action.rawValue, from: from, to: to,
                                               role: transition.role))
                }
            }
        }
        let revoked = Transition.approvalRevokedByEdit
        changes.insert(StateChange(cause: editCause, from: revoked.from, to: revoked.to, role: .developer))
        return changes
    }()

    public var description: String { "\(cause): \(from.rawValue) → \(to.rawValue) (\(role.rawValue))" }
}
