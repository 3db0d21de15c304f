import CatalogAPI
import CatalogCore
import Foundation

extension Components.Schemas.Product {
    /// A product as the API answers it: current content, state, both revisions, and what `role` may do next
    /// (nothing, without a role: a product as it was in the past).
    init(_ product: Product, app: App, role: KeyRole?) {
        let current = Components.Schemas.ProductContent(product, content: product.content)
        self.init(
            productId: product.productID, _type: EnumMapping.convert(product.type),
            referenceName: product.referenceName, price: current.price, territoryPrices: current.territoryPrices ?? [],
            localizations: current.localizations ?? [], familyShareable: product.content.familyShareable,
            clearedForSale: product.clearedForSale, reviewNote: product.content.reviewNote,
            subscriptionGroupId: current.subscriptionGroupId, level: product.content.level,
            duration: current.duration, introductoryOffer: current.introductoryOffer,
            state: EnumMapping.convert(product.state), version: product.version, onSale: product.onSale,
            allowedActions: role.map { product.allowedActions(for: $0) }?.map { EnumMapping.convert($0) } ?? [],
            missingForApproval: product.missingForApproval(in: app).map(Components.Schemas.FieldProblem.init),
            live: product.liveContent.map { Components.Schemas.ProductContent(product, content: $0) },
            draft: product.draftContent.map { Components.Schemas.ProductContent(product, content: $0) },
            createdAt: product.createdAt, updatedAt: product.updatedAt)
    }
}

extension Components.Schemas.ProductContent {
    /// One revision: its reviewed `content`, with the product's unreviewed fields (shared by all revisions).
    init(_ product: Product, content: ReviewedContent) {
        self.init(
            referenceName: product.referenceName, price: product.price.map(Components.Schemas.Price.init),
            territoryPrices: product.territoryPrices.map(Components.Schemas.TerritoryPrice.init),
            localizations: content.localizations.map(Components.Schemas.Localization.init),
            familyShareable: content.familyShareable, clearedForSale: product.clearedForSale,
            reviewNote: content.reviewNote, subscriptionGroupId: content.subscriptionGroupID?.lowercaseText,
            level: content.level, duration: content.duration.map { EnumMapping.convert($0) },
            introductoryOffer: product.introductoryOffer.map(Components.Schemas.IntroductoryOffer.init))
    }
}

extension Components.Schemas.Price {
    init(_ price: Price) { self.init(currency: price.currency, amount: price.amount.text) }
}

extension Components.Schemas.TerritoryPrice {
    init(_ price: TerritoryPrice) {
        self.init(territory: price.territory, currency: price.currency, amount: price.amount.text)
    }
}

extension Components.Schemas.Localization {
    init(_ localization: Localization) {
        self.init(locale: localization.locale, displayName: localization.displayName,
                  description: localization.description)
    }
}

extension Components.Schemas.IntroductoryOffer {
    init(_ offer: IntroductoryOffer) {
        self.init(paymentMode: EnumMapping.convert(offer.paymentMode), period: EnumMapping.convert(offer.period),
                  numberOfPeriods: offer.numberOfPeriods, amount: offer.amount?.text)
    }
}

extension Components.Schemas.FieldProblem {
    init(_ problem: FieldProblem) { self.init(field: problem.field, rule: problem.rule, message: problem.message) }
}

extension ProductEdit {
    /// An edit from a create or update body; a malformed group id is reported with the rest of the problems.
    init(referenceName: String?, price: Components.Schemas.Price?, territoryPrices: [Components.Schemas.TerritoryPrice]?,
         localizations: [Components.Schemas.Localization]?, familyShareable: Bool?, clearedForSale: Bool?,
         reviewNote: String?, subscriptionGroupId: String?, level: Int?,
         duration: Components.Schemas.SubscriptionDuration?, introductoryOffer: Components.Schemas.IntroductoryOffer?,
         clear: [Components.Schemas.ClearableField]?) throws(CatalogError) {
        var groupID: UUID?
        if let subscriptionGroupId {
            guard let parsed = UUID(text: subscriptionGroupId) else {
                throw .validationFailed([FieldProblem(field: "subscriptionGroupId", rule: "format",
                                                      message: "must be a subscription group's id (a UUID)")])
            }
            groupID = parsed
        }
        self.init(
            referenceName: referenceName,
            price: price.map { Price(currency: $0.currency, amount: DecimalAmount($0.amount)) },
            territoryPrices: territoryPrices?.map {
                TerritoryPrice(territory: $0.territory, currency: $0.currency, amount: DecimalAmount($0.amount))
            },
            introductoryOffer: introductoryOffer.map {
                IntroductoryOffer(paymentMode: EnumMapping.convert($0.paymentMode), period: EnumMapping.convert($0.period),
                                  numberOfPeriods: $0.numberOfPeriods ?? 1, amount: $0.amount.map { DecimalAmount($0) })
            },
            clearedForSale: clearedForSale,
            localizations: localizations?.map {
                Localization(locale: $0.locale, displayName: $0.displayName, description: $0.description)
            },
            reviewNote: reviewNote, familyShareable: familyShareable, subscriptionGroupID: groupID, level: level,
            duration: duration.map { EnumMapping.convert($0) },
            clear: Set((clear ?? []).map { EnumMapping.convert($0) }))
    }

    init(_ body: Components.Schemas.ProductUpdate) throws(CatalogError) {
        try self.init(
            referenceName: body.referenceName, price: body.price, territoryPrices: body.territoryPrices,
            localizations: body.localizations, familyShareable: body.familyShareable,
            clearedForSale: body.clearedForSale, reviewNote: body.reviewNote,
            subscriptionGroupId: body.subscriptionGroupId, level: body.level, duration: body.duration,
            introductoryOffer: body.introductoryOffer, clear: body.clear)
    }
}

extension NewProduct {
    init(_ body: Components.Schemas.ProductCreate) throws(CatalogError) {
        self.init(
            productID: body.productId, type: EnumMapping.convert(body._type),
            fields: try ProductEdit(
                referenceName: body.referenceName, price: body.price, territoryPrices: body.territoryPrices,
                localizations: body.localizations, familyShareable: body.familyShareable,
                clearedForSale: body.clearedForSale, reviewNote: body.reviewNote,
                subscriptionGroupId: body.subscriptionGroupId, level: body.level, duration: body.duration,
                introductoryOffer: body.introductoryOffer, clear: nil))
    }
}
