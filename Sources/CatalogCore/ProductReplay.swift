import Foundation

extension Product {
    /// The product as its history tells it after `events` (its own, oldest first): every event lists each
    /// field it changed with the new value, and its state after. `nil` when the product did not exist then
    /// (no creation yet, or deleted).
    public static func replaying(_ events: [HistoryEvent]) throws -> Product? {
        guard let creation = events.first, creation.record.kind == .created,
              let bundleID = creation.record.bundleID, let productID = creation.record.productID,
              let typeValue = creation.record.changes.first(where: { $0.field == "type" })?.new,
              let type = PurchaseType(rawValue: try decode(String.self, typeValue))
        else { return nil }
        var product = Product(
            bundleID: bundleID, productID: productID, type: type, state: .initial, version: 1, referenceName: "",
            price: nil, territoryPrices: [], introductoryOffer: nil, clearedForSale: true, content: ReviewedContent(),
            liveContent: nil, submittedFrom: nil, everSubmitted: false, createdAt: creation.at, updatedAt: creation.at)
        for event in events {
            let record = event.record
            if record.kind == .deleted { return nil }
            for change in record.changes { try product.replay(change) }
            if let state = record.toState { product.state = state }
            if let version = record.productVersion { product.version = version }
            if let action = record.action, Transition.named(action).effects.contains(.rememberSubmissionOrigin) {
                product.everSubmitted = true
            }
            product.submittedFrom = product.state == .waitingForReview ? record.fromState ?? product.submittedFrom : nil
            product.updatedAt = event.at
        }
        return product
    }

    private mutating func replay(_ change: FieldChange) throws {
        let value = change.new
        switch change.field {
        case "referenceName": referenceName = try Self.decode(String.self, value ?? .string(""))
        case "price": price = try value.map { try Self.decode(Price.self, $0) }
        case "territoryPrices": territoryPrices = try value.map { try Self.decode([TerritoryPrice].self, $0) } ?? []
        case "introductoryOffer": introductoryOffer = try value.map { try Self.decode(IntroductoryOffer.self, $0) }
        case "clearedForSale": clearedForSale = try value.map { try Self.decode(Bool.self, $0) } ?? true
        case "localizations": content.localizations = try value.map { try Self.decode([Localization].self, $0) } ?? []
        case "reviewNote": content.reviewNote = try value.map { try Self.decode(String.self, $0) }
        case "familyShareable": content.familyShareable = try value.map { try Self.decode(Bool.self, $0) } ?? false
        case "subscriptionGroupId": content.subscriptionGroupID = try value.map { try Self.decode(UUID.self, $0) }
        case "level": content.level = try value.map { try Self.decode(Int.self, $0) }
        case "duration": content.duration = try value.map { try Self.decode(SubscriptionDuration.self, $0) }
        case "live": liveContent = try value.map { try Self.decode(ReviewedContent.self, $0) }
        default: break
        }
    }

    private static func decode<T: Decodable>(_ type: T.Type, _ value: JSONValue) throws -> T {
        try JSONDecoder().decode(T.self, from: JSONEncoder().encode(value))
    }
}
