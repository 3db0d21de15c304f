import Foundation

/// An in-app purchase product of one app, with its review state and its revisions.
public struct Product: Sendable, Hashable {
    public let bundleID: String
    /// Unique within the app and never reusable, not even after deletion or rejection.
    public let productID: String
    /// Fixed at creation.
    public let type: PurchaseType
    public internal(set) var state: ReviewState
    /// Grows by one with every change; the ETag is its quoted value.
    public internal(set) var version: Int

    // Unreviewed fields: effective at once, the live revision included.
    /// Internal only, unique within the app.
    public internal(set) var referenceName: String
    public internal(set) var price: Price?
    public internal(set) var territoryPrices: [TerritoryPrice]
    public internal(set) var introductoryOffer: IntroductoryOffer?
    /// Whether passing review puts the product on sale; once live, only the sale actions change it.
    public internal(set) var clearedForSale: Bool

    /// The working revision of the reviewed fields.
    public internal(set) var content: ReviewedContent
    /// The revision customers see, once the product has passed review.
    public internal(set) var liveContent: ReviewedContent?

    /// While WAITING_FOR_REVIEW: the state the submission came from, where `withdraw` returns.
    public internal(set) var submittedFrom: ReviewState?
    /// Whether the product was ever submitted for review (then it can no longer be deleted).
    public internal(set) var everSubmitted: Bool
    public internal(set) var createdAt: Date
    public internal(set) var updatedAt: Date

    /// A product as stored; the store uses this to rebuild one from its row.
    public init(bundleID: String, productID: String, type: PurchaseType, state: ReviewState, version: Int,
                referenceName: String, price: Price?, territoryPrices: [TerritoryPrice],
                introductoryOffer: IntroductoryOffer?, clearedForSale: Bool, content: ReviewedContent,
                liveContent: ReviewedContent?, submittedFrom: ReviewState?, everSubmitted: Bool,
                createdAt: Date, updatedAt: Date) {
        self.bundleID = bundleID
        self.productID = productID
        self.type = type
        self.state = state
        self.version = version
        self.referenceName = referenceName
        self.price = price
        self.territoryPrices = territoryPrices
        self.introductoryOffer = introductoryOffer
        self.clearedForSale = clearedForSale
        self.content = content
        self.liveContent = liveContent
        self.submittedFrom = submittedFrom
        self.everSubmitted = everSubmitted
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// Whether client apps get this product's identifier: it has passed review, is cleared for sale and was
    /// not rejected. A later change waiting, in review or sent back leaves the live revision on sale.
    public var onSale: Bool { liveContent != nil && clearedForSale && state != .rejected }

    /// Content not live yet: everything before the first acceptance, then a change while it differs.
    public var draftContent: ReviewedContent? {
        guard let liveContent else { return content }
        return liveContent == content ? nil : content
    }

    /// Only a product that was never submitted may be deleted; its productId stays reserved.
    public var isDeletable: Bool { !everSubmitted }
}

extension Product {
    /// Every field that differs from `earlier`, named as the API names them: what history records of a
    /// change. A new live revision appears as `live`.
    public func changes(from earlier: Product) -> [FieldChange] {
        [
            FieldChange(field: "referenceName", old: earlier.referenceName, new: referenceName),
            FieldChange(field: "price", old: earlier.price, new: price),
            FieldChange(field: "territoryPrices", old: earlier.territoryPrices, new: territoryPrices),
            FieldChange(field: "introductoryOffer", old: earlier.introductoryOffer, new: introductoryOffer),
            FieldChange(field: "clearedForSale", old: earlier.clearedForSale, new: clearedForSale),
        ].compactMap { $0 }
            + content.changes(from: earlier.content)
            + [FieldChange(field: "live", old: earlier.liveContent, new: liveContent)].compactMap { $0 }
    }

    /// The content a new product was created with, as changes from nothing: its first history event.
    public var creationChanges: [FieldChange] {
        let blank = Product(
            bundleID: bundleID, productID: productID, type: type, state: state, version: 0, referenceName: "",
            price: nil, territoryPrices: [], introductoryOffer: nil, clearedForSale: true, content: ReviewedContent(),
            liveContent: nil, submittedFrom: nil, everSubmitted: false, createdAt: createdAt, updatedAt: createdAt)
        let fields = [FieldChange(field: "productId", old: nil, new: productID),
                      FieldChange(field: "type", old: nil, new: type)].compactMap { $0 } + changes(from: blank)
        return fields.map { FieldChange(field: $0.field, old: nil, new: $0.new) }
    }
}
