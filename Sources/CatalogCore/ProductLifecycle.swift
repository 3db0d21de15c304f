import Foundation

extension Product {
    /// The actions `role` may take next from the product's state, in table order. Guards that depend only on
    /// the product's revisions are applied; completeness is not (a failed `approve` names what is missing).
    public func allowedActions(for role: KeyRole) -> [ReviewAction] {
        Transition.table
            .filter { $0.from.contains(state) && role.may($0.action) && revisionGuardFailure($0) == nil }
            .map(\.action)
    }

    /// Whether this product is `previous` with only its lifecycle fields changed: state, version, the
    /// submission's origin, whether it was ever submitted, whether it is cleared for sale, and the time of the
    /// change. Most actions are such a move; accepting and cancelling a change also move revisions, and an
    /// edit changes fields. Any other difference, a field added later included, answers `false`.
    public func changesOnlyLifecycle(from previous: Product) -> Bool {
        var moved = previous
        moved.state = state
        moved.version = version
        moved.submittedFrom = submittedFrom
        moved.everSubmitted = everSubmitted
        moved.clearedForSale = clearedForSale
        moved.updatedAt = updatedAt
        return moved == self
    }

    /// The product after `action`, taken by a key of `role`.
    ///
    /// Refuses, in this order: a role that may never take the action (forbidden), an action not allowed from
    /// the current state (invalid transition, with the allowed actions), then the transition's guards.
    public func performing(_ action: ReviewAction, by role: KeyRole, reason: String?, in app: App,
                           at now: Date) throws(CatalogError) -> Product {
        let transition = Transition.named(action)
        guard role.may(action) else {
            throw .forbidden("a \(role.rawValue) key may not take the action \(action.rawValue)")
        }
        guard transition.from.contains(state) else {
            throw refusal(action, detail: "\(action.rawValue) is not allowed from \(state.rawValue)", role: role)
        }
        if let reason {
            let problems = TextRules.problems(reason, field: "reason", length: Limits.reason)
            guard problems.isEmpty else { throw .validationFailed(problems) }
        } else if transition.guards.contains(.reason) {
            throw .validationFailed([FieldProblem(field: "reason", rule: "required",
                                                  message: "\(action.rawValue) needs a reason")])
        }
        if let detail = revisionGuardFailure(transition) {
            throw refusal(action, detail: detail, role: role)
        }
        if transition.guards.contains(.complete) {
            let missing = missingForApproval(in: app)
            guard missing.isEmpty else { throw .productIncomplete(missing) }
        }

        var next = self
        for effect in transition.effects {
            switch effect {
            case .rememberSubmissionOrigin:
                next.submittedFrom = state
                next.everSubmitted = true
            case .publishDraft:
                next.liveContent = content
            case .discardDraft:
                if let liveContent { next.content = liveContent }
            case .setClearedForSale(let cleared):
                next.clearedForSale = cleared
            }
        }
        switch transition.to {
        case .state(let state): next.state = state
        case .submissionOrigin: next.state = submittedFrom ?? Transition.named(.submit).from[0]
        case .liveState: next.state = next.clearedForSale ? .readyForSale : .developerRemovedFromSale
        }
        if next.state != .waitingForReview { next.submittedFrom = nil }
        next.version += 1
        next.updatedAt = now
        return next
    }

    /// Why a guard on the product's revisions fails, or `nil` when none does.
    private func revisionGuardFailure(_ transition: Transition) -> String? {
        for guardCondition in transition.guards {
            switch guardCondition {
            case .hasLiveRevision where liveContent == nil:
                return "\(transition.action.rawValue) needs a live revision to return to, and this product has never been live"
            case .draftDiffersFromLive where liveContent == content:
                return "\(transition.action.rawValue) needs a draft that differs from the live revision in reviewed fields"
            default:
                continue
            }
        }
        return nil
    }

    private func refusal(_ action: ReviewAction, detail: String, role: KeyRole) -> CatalogError {
        .invalidTransition(InvalidTransition(action: action, state: state, allowedActions: allowedActions(for: role),
                                             detail: detail))
    }
}
