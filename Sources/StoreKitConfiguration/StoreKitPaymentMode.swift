/// How an offer is paid for.
///
/// Unknown values are kept rather than rejected: the set has grown with
/// Xcode before, and a round trip must not lose a newer mode.
public enum StoreKitPaymentMode: Sendable, Hashable, RawRepresentable {
    /// A free trial for `subscriptionPeriod` × `numberOfPeriods`.
    case free
    /// `displayPrice` each period, for `numberOfPeriods` periods.
    case payAsYouGo
    /// `displayPrice` once, for `subscriptionPeriod` × `numberOfPeriods`.
    case payUpFront
    /// Seen once in a real file (Cisum); meaning unknown.
    case none
    /// Any other value, as written.
    case other(String)

    public init(rawValue: String) {
        switch rawValue {
        case "free": self = .free
        case "payAsYouGo": self = .payAsYouGo
        case "payUpFront": self = .payUpFront
        case "none": self = .none
        default: self = .other(rawValue)
        }
    }

    public var rawValue: String {
        switch self {
        case .free: "free"
        case .payAsYouGo: "payAsYouGo"
        case .payUpFront: "payUpFront"
        case .none: "none"
        case .other(let value): value
        }
    }
}
