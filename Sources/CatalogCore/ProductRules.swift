import Foundation

extension Product {
    /// Creates a product in PENDING_DEVELOPER_APPROVAL, version 1, from its required fields and any content.
    public static func create(_ new: NewProduct, in app: App, at now: Date) throws(CatalogError) -> Product {
        var product = Product(
            bundleID: app.bundleID, productID: new.productID, type: new.type, state: .initial, version: 1,
            referenceName: "", price: nil, territoryPrices: [], introductoryOffer: nil, clearedForSale: true,
            content: ReviewedContent(), liveContent: nil, submittedFrom: nil, everSubmitted: false,
            createdAt: now, updatedAt: now)
        new.fields.write(into: &product)
        var problems = Identifiers.productIDProblems(new.productID)
        if new.fields.referenceName == nil {
            problems.append(FieldProblem(field: "referenceName", rule: "required", message: "is required"))
        }
        if new.type.requiresNewsstandApp && !app.newsstand {
            problems.append(FieldProblem(field: "type", rule: "newsstandOnly",
                                         message: "a free subscription is only allowed in a Newsstand app"))
        }
        problems += new.fields.problems + product.contentProblems(comparedWith: nil)
        guard problems.isEmpty else { throw .validationFailed(problems) }
        return product
    }

    /// The product with `edit` applied, or `nil` when the edit changes nothing.
    ///
    /// Unreviewed fields change in every state but REJECTED. Reviewed fields change only where
    /// ``ReviewState/acceptsReviewedEdits``; in APPROVED_BY_DEVELOPER the edit revokes the approval. Once live,
    /// `clearedForSale` changes only through the sale actions.
    public func applying(_ edit: ProductEdit, in app: App, at now: Date) throws(CatalogError) -> ProductChange? {
        guard !state.isTerminal else {
            throw .conflict("a \(state.rawValue) product cannot be edited", state: state)
        }
        var edited = self
        edit.write(into: &edited)
        let reviewedChanges = edited.content.changes(from: content)
        if !reviewedChanges.isEmpty && !state.acceptsReviewedEdits {
            throw .conflict(
                "reviewed fields (\(reviewedChanges.map(\.field).joined(separator: ", "))) cannot be edited in \(state.rawValue)",
                state: state)
        }
        if edited.clearedForSale != clearedForSale && liveContent != nil {
            throw .conflict("once live, clearedForSale changes only through remove_from_sale and restore_to_sale",
                            state: state)
        }
        let problems = edit.problems + edited.contentProblems(comparedWith: self)
        guard problems.isEmpty else { throw .validationFailed(problems) }

        let changes = edited.changes(from: self)
        guard !changes.isEmpty else { return nil }

        if !reviewedChanges.isEmpty && state == Transition.approvalRevokedByEdit.from {
            edited.state = Transition.approvalRevokedByEdit.to
        }
        edited.version += 1
        edited.updatedAt = now
        return ProductChange(product: edited, changes: changes, fromState: state)
    }

    /// Every rule of the product's type and the field limits that its current content breaks. `previous` is
    /// the product before an edit, for the rules about how a field may change.
    func contentProblems(comparedWith previous: Product?) -> [FieldProblem] {
        var problems = TextRules.problems(referenceName, field: "referenceName", length: Limits.referenceName)
        if let price {
            problems += price.problems(field: "price") + amountProblems(price.amount, field: "price.amount")
        }
        if territoryPrices.count > Limits.territoryPrices {
            problems.append(FieldProblem(field: "territoryPrices", rule: "maxItems",
                                         message: "at most \(Limits.territoryPrices) territory prices"))
        }
        var territories = Set<String>()
        for (index, territoryPrice) in territoryPrices.enumerated() {
            let field = "territoryPrices[\(index)]"
            problems += territoryPrice.problems(field: field)
                + amountProblems(territoryPrice.amount, field: "\(field).amount")
            if !territories.insert(territoryPrice.territory).inserted {
                problems.append(FieldProblem(field: "\(field).territory", rule: "unique",
                                             message: "\(territoryPrice.territory) appears twice"))
            }
        }
        if let introductoryOffer {
            problems += type.isGroupedSubscription
                ? introductoryOffer.problems(field: "introductoryOffer")
                : [notForType("introductoryOffer")]
        }
        problems += localizationProblems()
        if let reviewNote = content.reviewNote {
            problems += TextRules.problems(reviewNote, field: "reviewNote", length: Limits.reviewNote)
        }
        if content.familyShareable && !type.allowsFamilySharing {
            problems.append(notForType("familyShareable"))
        }
        if previous?.content.familyShareable == true && !content.familyShareable {
            problems.append(FieldProblem(field: "familyShareable", rule: "cannotTurnOff",
                                         message: "once family sharing is turned on it cannot be turned off"))
        }
        if !type.isGroupedSubscription {
            if content.subscriptionGroupID != nil { problems.append(notForType("subscriptionGroupId")) }
            if content.level != nil { problems.append(notForType("level")) }
            if content.duration != nil { problems.append(notForType("duration")) }
        }
        if let level = content.level, !Limits.level.contains(level) {
            problems.append(FieldProblem(field: "level", rule: "range", message: "must be between 1 and 10000"))
        }
        return problems
    }

    /// What `approve` needs that the product does not have yet, item by item; empty when complete.
    public func missingForApproval(in app: App) -> [FieldProblem] {
        var missing: [FieldProblem] = []
        if !content.localizations.contains(where: { $0.locale == app.primaryLocale }) {
            missing.append(FieldProblem(field: "localizations", rule: "primaryLocale",
                                        message: "needs a localization in the app's primary locale \(app.primaryLocale)"))
        }
        if type.isPaid && price == nil {
            missing.append(FieldProblem(
                field: "price", rule: "required",
                message: type.priceRule == .zeroOrAbove ? "needs a price (0 for a free \(type.rawValue))" : "needs a price above zero"))
        }
        if type.isGroupedSubscription {
            if content.subscriptionGroupID == nil {
                missing.append(FieldProblem(field: "subscriptionGroupId", rule: "required",
                                            message: "needs a subscription group"))
            }
            if content.level == nil {
                missing.append(FieldProblem(field: "level", rule: "required", message: "needs a level in its group"))
            }
            if content.duration == nil {
                missing.append(FieldProblem(field: "duration", rule: "required",
                                            message: "needs a duration (P1W, P1M, P2M, P3M, P6M or P1Y)"))
            }
        }
        if type.requiresNewsstandApp && !app.newsstand {
            missing.append(FieldProblem(field: "type", rule: "newsstandOnly",
                                        message: "a free subscription is only allowed in a Newsstand app"))
        }
        return missing
    }

    private func localizationProblems() -> [FieldProblem] {
        var problems: [FieldProblem] = []
        if content.localizations.count > Limits.localizationsPerProduct {
            problems.append(FieldProblem(field: "localizations", rule: "maxItems",
                                         message: "at most \(Limits.localizationsPerProduct) localizations"))
        }
        var locales = Set<String>()
        for (index, localization) in content.localizations.enumerated() {
            problems += localization.problems(field: "localizations[\(index)]", of: type)
            if !locales.insert(localization.locale).inserted {
                problems.append(FieldProblem(field: "localizations[\(index)].locale", rule: "unique",
                                             message: "\(localization.locale) appears twice"))
            }
        }
        return problems
    }

    /// The amounts the type's price rule allows: above zero, zero or above (a non-consumable), or zero (the free
    /// subscription).
    private func amountProblems(_ amount: DecimalAmount, field: String) -> [FieldProblem] {
        guard amount.isValid else { return [] }
        switch type.priceRule {
        case .aboveZero where amount.isZero:
            return [FieldProblem(field: field, rule: "positive", message: "must be above zero for a \(type.rawValue)")]
        case .zero where !amount.isZero:
            return [FieldProblem(field: field, rule: "zero", message: "a free subscription's price is zero")]
        default:
            return []
        }
    }

    private func notForType(_ field: String) -> FieldProblem {
        FieldProblem(field: field, rule: "notAllowedForType", message: "is not allowed for a \(type.rawValue)")
    }
}
