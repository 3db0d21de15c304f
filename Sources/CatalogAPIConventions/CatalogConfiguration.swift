import CatalogCore
import Foundation
import OpenAPIRuntime

extension Configuration {
    /// How the server and its clients encode: compact JSON with sorted keys, RFC 3339 dates.
    public static let catalog = Configuration(dateTranscoder: RFC3339DateTranscoder(),
                                              jsonEncodingOptions: [.sortedKeys, .withoutEscapingSlashes])
}

/// RFC 3339 timestamps: written in UTC with milliseconds; read with any number of fractional digits and any
/// offset RFC 3339 allows (up to ±23:59; Foundation's ISO 8601 parser refuses offsets beyond ±18:00).
public struct RFC3339DateTranscoder: DateTranscoder {
    public init() {}

    public func encode(_ date: Date) throws -> String {
        RFC3339Text.milliseconds(date)
    }

    public func decode(_ text: String) throws -> Date {
        guard let date = Self.parse(text) else { throw InvalidTimestamp(text: String(text.prefix(40))) }
        return date
    }

    /// `date-time` of RFC 3339 section 5.6, or `nil`.
    static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        func number(_ start: Int, _ count: Int) -> Int? {
            guard start + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[start..<start + count] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        func byte(_ index: Int, is characters: String) -> Bool {
            index < bytes.count && characters.utf8.contains(bytes[index])
        }
        guard let year = number(0, 4), byte(4, is: "-"), let month = number(5, 2), byte(7, is: "-"),
              let day = number(8, 2), byte(10, is: "Tt "), let hour = number(11, 2), byte(13, is: ":"),
              let minute = number(14, 2), byte(16, is: ":"), let second = number(17, 2)
        else { return nil }
        var index = 19
        var fraction = 0.0
        if byte(index, is: ".") {
            index += 1
            var scale = 0.1
            let start = index
            while let digit = number(index, 1) {
                fraction += Double(digit) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        var offset = 0
        if byte(index, is: "Zz") {
            index += 1
        } else if byte(index, is: "+-") {
            guard let hours = number(index + 1, 2), byte(index + 3, is: ":"), let minutes = number(index + 4, 2),
                  hours <= 23, minutes <= 59
            else { return nil }
            offset = (hours * 3600 + minutes * 60) * (bytes[index] == UInt8(ascii: "-") ? -1 : 1)
            index += 6
        } else {
            return nil
        }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let monthDays = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard index == bytes.count, (1...12).contains(month), (1...monthDays[month - 1]).contains(day), hour <= 23,
              minute <= 59, second <= 60
        else { return nil }
        // Days from 1970-01-01 to the date (the proleptic Gregorian calendar's days-from-civil).
        let shifted = month <= 2 ? year - 1 : year
        let era = shifted / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * ((month + 9) % 12) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }
}

/// A text that is not an RFC 3339 timestamp where the document asks for one (a `date-time`).
public struct InvalidTimestamp: Error, CustomStringConvertible {
    /// The text, cut to 40 characters.
    public let text: String
    public var description: String { "not an RFC 3339 timestamp: \(text)" }
}
