/// How often an auto-renewable subscription renews: the only six durations
/// App Store Connect offers, as ISO 8601 durations.
public enum StoreKitRecurringPeriod: String, Sendable, CaseIterable {
    case oneWeek = "P1W"
    case oneMonth = "P1M"
    case twoMonths = "P2M"
    case threeMonths = "P3M"
    case sixMonths = "P6M"
    case oneYear = "P1Y"

    static func read(_ value: StoreKitJSON, at path: StoreKitJSONPath, log: IssueLog) -> StoreKitRecurringPeriod? {
        guard let text = Expect.string(value, at: path, log: log) else { return nil }
        guard let period = StoreKitRecurringPeriod(rawValue: text) else {
            let allowed = allCases.map(\.rawValue).joined(separator: ", ")
            log.add("recurringSubscriptionPeriod \(XcodeJSONWriter.quoted(text)) is not one of \(allowed)", at: path)
            return nil
        }
        return period
    }
}
