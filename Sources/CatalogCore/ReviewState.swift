/// The eight App Store review states a product moves through.
public enum ReviewState: String, CaseIterable, Sendable, Codable {
    case pendingDeveloperApproval = "PENDING_DEVELOPER_APPROVAL"
    case approvedByDeveloper = "APPROVED_BY_DEVELOPER"
    case waitingForReview = "WAITING_FOR_REVIEW"
    case inReview = "IN_REVIEW"
    case developerActionRequired = "DEVELOPER_ACTION_REQUIRED"
    case readyForSale = "READY_FOR_SALE"
    case rejected = "REJECTED"
    case developerRemovedFromSale = "DEVELOPER_REMOVED_FROM_SALE"

    /// Every product starts here.
    public static let initial = ReviewState.pendingDeveloperApproval

    /// A rejected product can never be reinstated nor edited.
    public var isTerminal: Bool { self == .rejected }

    /// Reviewed fields can be edited here; in the two live states the edit goes into a draft.
    /// While a submission waits or is in review the content under review must not move.
    public var acceptsReviewedEdits: Bool {
        switch self {
        case .pendingDeveloperApproval, .approvedByDeveloper, .developerActionRequired, .readyForSale,
            .developerRemovedFromSale:
            true
        case .waitingForReview, .inReview, .rejected:
            false
        }
    }

    /// Unreviewed fields (name, prices, availability) take effect at once in every state but the terminal one.
    public var acceptsUnreviewedEdits: Bool { !isTerminal }
}
