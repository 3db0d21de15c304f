import Foundation

/// Instants as RFC 3339 text in UTC to the millisecond (`2026-11-18T11:06:40.125Z`), the one form the service
/// writes: in the API's answers (CatalogAPIConventions) and in the purchases' items for the database.
public enum RFC3339Text {
    /// `date` to the millisecond, cut (not rounded), in the proleptic Gregorian calendar; years 0 to 9999 in four
    /// digits, others in as many as they need. Beyond about 30 million years from now, which no payload brings and
    /// whose seconds an integer here would not hold, Foundation's ISO 8601 style writes it.
    ///
    /// The date is first rounded to the microsecond, the database's resolution: an instant such as `…59.999` read
    /// from it is a Double a little under, and cut from the Double it would be `…59.998`.
    public static func milliseconds(_ date: Date) -> String {
        // From the date's own count (seconds from 2001), not from timeIntervalSince1970, which adds a rounding.
        let sinceReference = date.timeIntervalSinceReferenceDate
        guard sinceReference.isFinite, abs(sinceReference) < 1e15 else {
            return date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        }
        let wholeSeconds = sinceReference.rounded(.down)
        var seconds = Int64(wholeSeconds) + 978_307_200
        var microseconds = Int64(((sinceReference - wholeSeconds) * 1_000_000).rounded())
        if microseconds == 1_000_000 {
            seconds += 1
            microseconds = 0
        }
        let day = (seconds >= 0 ? seconds : seconds - 86_399) / 86_400
        let secondOfDay = seconds - day * 86_400
        // Howard Hinnant's civil_from_days.
        let shifted = day + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let dayOfMonth = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)

        var text = [UInt8]()
        text.reserveCapacity(24)
        func append(_ value: Int64, digits: Int) {
            var divisor: Int64 = 1
            for _ in 1..<digits { divisor *= 10 }
            while divisor > 0 {
                text.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
                divisor /= 10
            }
        }
        if (0...9_999).contains(year) {
            append(year, digits: 4)
        } else {
            text.append(contentsOf: String(year).utf8)
        }
        text.append(UInt8(ascii: "-"))
        append(month, digits: 2)
        text.append(UInt8(ascii: "-"))
        append(dayOfMonth, digits: 2)
        text.append(UInt8(ascii: "T"))
        append(secondOfDay / 3_600, digits: 2)
        text.append(UInt8(ascii: ":"))
        append(secondOfDay / 60 % 60, digits: 2)
        text.append(UInt8(ascii: ":"))
        append(secondOfDay % 60, digits: 2)
        text.append(UInt8(ascii: "."))
        append(microseconds / 1_000, digits: 3)
        text.append(UInt8(ascii: "Z"))
        return String(decoding: text, as: UTF8.self)
    }
}
