/// How long one period of an auto-renewable subscription lasts.
public enum SubscriptionDuration: String, CaseIterable, Sendable, Codable {
    case oneWeek = "P1W"
    case oneMonth = "P1M"
    case twoMonths = "P2M"
    case threeMonths = "P3M"
    case sixMonths = "P6M"
    case oneYear = "P1Y"
}

/// How long one period of an introductory offer lasts (offers also allow 3 days and 2 weeks).
public enum OfferPeriod: String, CaseIterable, Sendable, Codable {
    case threeDays = "P3D"
    case oneWeek = "P1W"
    case twoWeeks = "P2W"
    case oneMonth = "P1M"
    case twoMonths = "P2M"
    case threeMonths = "P3M"
    case sixMonths = "P6M"
    case oneYear = "P1Y"
}
