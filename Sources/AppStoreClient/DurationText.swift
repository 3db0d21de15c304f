import Foundation

/// Durations as operators write them in the environment: a number and a unit, `72h`, `30m`, `90s`, `500ms`,
/// `1d`, or several of them together (`1h30m`).
public enum DurationText {
    /// Reads `text`; `name` is the setting it came from, for the error.
    public static func parse(_ text: String, name: String) throws(AppStoreConfigurationError) -> Duration {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else {
            throw AppStoreConfigurationError(name: name, "is empty; write a duration such as 72h, 30m or 90s")
        }
        var total = Duration.zero
        var rest = Substring(trimmed)
        while !rest.isEmpty {
            let digits = rest.prefix(while: { $0.isASCII && ($0.isNumber || $0 == ".") })
            guard !digits.isEmpty, let amount = Double(digits), amount.isFinite else {
                throw AppStoreConfigurationError(
                    name: name, "\"\(text)\" is not a duration; write a number and a unit, such as 72h, 30m or 90s")
            }
            rest = rest.dropFirst(digits.count)
            let unit = rest.prefix(while: { $0.isLetter })
            rest = rest.dropFirst(unit.count)
            let seconds: Double
            switch unit {
            case "ms": seconds = amount / 1000
            case "s": seconds = amount
            case "m": seconds = amount * 60
            case "h": seconds = amount * 3600
            case "d": seconds = amount * 86400
            case "":
                throw AppStoreConfigurationError(
                    name: name, "\"\(text)\" needs a unit after \(digits): ms, s, m, h or d (e.g. 72h)")
            default:
                throw AppStoreConfigurationError(
                    name: name, "\"\(text)\" has an unknown unit \"\(unit)\"; use ms, s, m, h or d (e.g. 72h)")
            }
            total += .milliseconds(Int64((seconds * 1000).rounded()))
        }
        guard total > .zero else {
            throw AppStoreConfigurationError(name: name, "\"\(text)\" must be longer than zero")
        }
        return total
    }
}
