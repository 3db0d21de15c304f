import Foundation

/// A change to a product's content: fields left `nil` stay as they are; fields named in `clear` are reset.
public struct ProductEdit: Sendable, Hashable {
    /// An optional field that an edit can reset to no value.
    public enum ClearableField: String, CaseIterable, Sendable {
        case price, territoryPrices, introductoryOffer, reviewNote, subscriptionGroupId, level, duration
    }

    public var referenceName: String?
    public var price: Price?
    public var territoryPrices: [TerritoryPrice]?
    public var introductoryOffer: IntroductoryOffer?
    public var clearedForSale: Bool?
    public var localizations: [Localization]?
    public var reviewNote: String?
    public var familyShareable: Bool?
    public var subscriptionGroupID: UUID?
    public var level: Int?
    public var duration: SubscriptionDuration?
    public var clear: Set<ClearableField>

    public init(referenceName: String? = nil, price: Price? = nil, territoryPrices: [TerritoryPrice]? = nil,
                introductoryOffer: IntroductoryOffer? = nil, clearedForSale: Bool? = nil,
                localizations: [Localization]? = nil, reviewNote: String? = nil, familyShareable: Bool? = nil,
                subscriptionGroupID: UUID? = nil, level: Int? = nil, duration: SubscriptionDuration? = nil,
                clear: Set<ClearableField> = []) {
        self.referenceName = referenceName
        self.price = price
        self.territoryPrices = territoryPrices
        self.introductoryOffer = introductoryOffer
        self.clearedForSale = clearedForSale
        self.localizations = localizations
        self.reviewNote = reviewNote
        self.familyShareable = familyShareable
        self.subscriptionGroupID = subscriptionGroupID
        self.level = level
        self.duration = duration
        self.clear = clear
    }

    /// A field both set and cleared is a contradiction, not a choice to make for the caller.
    var problems: [FieldProblem] {
        let set: [ClearableField: Bool] = [
            .price: price != nil, .territoryPrices: territoryPrices != nil,
            .introductoryOffer: introductoryOffer != nil, .reviewNote: reviewNote != nil,
            .subscriptionGroupId: subscriptionGroupID != nil, .level: level != nil, .duration: duration != nil,
        ]
        return ClearableField.allCases.filter { clear.contains($0) && set[$0] == true }.map {
            FieldProblem(field: $0.rawValue, rule: "setAndCleared", message: "is both given and listed in clear")
        }
    }

    /// Writes the edit into `product` without any check; the callers check the result.
    func write(into product: inout Product) {
        if let referenceName { product.referenceName = referenceName }
        if let price { product.price = price }
        if let territoryPrices { product.territoryPrices = territoryPrices }
        if let introductoryOffer { product.introductoryOffer = introductoryOffer }
        if let clearedForSale { product.clearedForSale = clearedForSale }
        if let localizations { product.content.localizations = localizations }
        if let reviewNote { product.content.reviewNote = reviewNote }
        if let familyShareable { product.content.familyShareable = familyShareable }
        if let subscriptionGroupID { product.content.subscriptionGroupID = subscriptionGroupID }
        if let level { product.content.level = level }
        if let duration { product.content.duration = duration }
        for field in clear {
            switch field {
            case .price: product.price = nil
            case .territoryPrices: product.territoryPrices = []
            case .introductoryOffer: product.introductoryOffer = nil
            case .reviewNote: product.content.reviewNote = nil
            case .subscriptionGroupId: product.content.subscriptionGroupID = nil
            case .level: product.content.level = nil
            case .duration: product.content.duration = nil
            }
        }
    }
}

/// What a product looks like when first created: the three required fields, and any content already known.
public struct NewProduct: Sendable, Hashable {
    public var productID: String
    public var type: PurchaseType
    /// The rest of the content; its `referenceName` is required.
    public var fields: ProductEdit

    public init(productID: String, type: PurchaseType, fields: ProductEdit) {
        self.productID = productID
        self.type = type
        self.fields = fields
    }
}

/// A product after an edit, with what changed.
public struct ProductChange: Sendable, Hashable {
    public let product: Product
    public let changes: [FieldChange]
    /// The state before the edit (an edit of an approved product sends it back to pending approval).
    public let fromState: ReviewState
}
