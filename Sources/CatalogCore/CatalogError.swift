/// Why the catalog refused a request. Each case is one kind of error with what a caller needs to act on
/// it; the HTTP edge maps each to its problem details.
public enum CatalogError: Error, Sendable, Equatable {
    /// The input breaks field rules; every problem found is listed, and nothing was changed.
    case validationFailed([FieldProblem])
    /// `approve` of a product whose metadata is not complete for its type; every missing item is listed.
    case productIncomplete([FieldProblem])
    /// The action is not allowed from the product's current state (or its guard does not hold).
    case invalidTransition(InvalidTransition)
    /// No such thing, or not one the caller may see.
    case notFound(String)
    /// The request contradicts the catalog's current content (a reserved productId, a taken level, an edit
    /// in a state that does not allow it, a racing change).
    case conflict(String, state: ReviewState? = nil)
    /// `If-Match` named a version that is no longer current.
    case preconditionFailed(current: Int)
    /// The caller's role may not do this.
    case forbidden(String)
}

/// The details of a refused action.
public struct InvalidTransition: Sendable, Equatable {
    public let action: ReviewAction
    public let state: ReviewState
    /// What the caller's role may do from the current state instead.
    public let allowedActions: [ReviewAction]
    /// Why, in one sentence.
    public let detail: String

    public init(action: ReviewAction, state: ReviewState, allowedActions: [ReviewAction], detail: String) {
        self.action = action
        self.state = state
        self.allowedActions = allowedActions
        self.detail = detail
    }
}
