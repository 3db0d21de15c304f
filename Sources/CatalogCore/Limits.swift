/// App Store Connect's limits, which the catalog enforces (and the database repeats as CHECK constraints).
///
/// Lengths count Unicode scalars, as PostgreSQL's `char_length` does, so that Swift and the database agree.
public enum Limits {
    public static let productID = 1...100
    public static let referenceName = 1...64
    public static let displayName = 2...30
    public static let description = 1...45
    /// An auto-renewable subscription's description: App Store Connect takes 55 characters there (a file
    /// synced from App Store Connect holds 50-character subscription descriptions).
    public static let subscriptionDescription = 1...55
    public static let reviewNote = 0...4_000
    public static let reason = 1...4_000
    public static let productsPerApp = 10_000
    public static let appName = 1...64
    public static let bundleID = 1...155
    public static let groupReferenceName = 1...64
    public static let groupDisplayName = 1...75
    public static let keyName = 1...100
    public static let level = 1...10_000
    public static let localizationsPerProduct = 100
    public static let territoryPrices = 200
    public static let introductoryOfferPeriods = 1...12
    public static let amountIntegerDigits = 1...10
    public static let amountFractionDigits = 1...6
}
