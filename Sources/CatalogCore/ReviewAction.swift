/// The twelve actions that move a product between review states.
public enum ReviewAction: String, CaseIterable, Sendable, Codable {
    case approve
    case submit
    case withdraw
    case startReview = "start_review"
    case accept
    case requestChanges = "request_changes"
    case reject
    case resubmit
    case cancelChange = "cancel_change"
    case submitChange = "submit_change"
    case removeFromSale = "remove_from_sale"
    case restoreToSale = "restore_to_sale"
}
