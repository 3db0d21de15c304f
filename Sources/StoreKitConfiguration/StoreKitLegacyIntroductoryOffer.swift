/// The single `introductoryOffer` key of formats 1.0 to 4.0.
///
/// Files write it three ways, and a faithful round trip has to keep them
/// apart: Xcode up to 4.0 writes `null` when there is no offer, Xcode 5.0
/// and later leave the key out, and RevenueCat's 5.0 files keep an object
/// next to `introductoryOffers`.
public enum StoreKitLegacyIntroductoryOffer: Sendable, Equatable {
    /// No `introductoryOffer` key.
    case absent
    /// `"introductoryOffer" : null`.
    case null
    /// `"introductoryOffer" : { … }`.
    case offer(StoreKitOffer)

    /// The offer, if there is one.
    public var offer: StoreKitOffer? {
        if case .offer(let offer) = self { offer } else { nil }
    }

    static func read(_ value: StoreKitJSON, at path: StoreKitJSONPath, log: IssueLog) -> StoreKitLegacyIntroductoryOffer? {
        if value.isNull { return .null }
        guard value.objectValue != nil else {
            log.typeMismatch(expected: "an object or null", found: value, at: path)
            return nil
        }
        return StoreKitOffer.read(value, at: path, log: log).map { .offer($0) }
    }

    /// The value to write, or `nil` to leave the key out.
    var jsonValue: StoreKitJSON? {
        switch self {
        case .absent: nil
        case .null: .null
        case .offer(let offer): offer.jsonValue()
        }
    }
}
