import Foundation
import OpenAPIRuntime

extension Configuration {
    /// How the server and its clients encode: compact JSON with sorted keys, RFC 3339 dates.
    public static let catalog = Configuration(dateTranscoder: RFC3339DateTranscoder(),
                                              jsonEncodingOptions: [.sortedKeys, .withoutEscapingSlashes])
}

/// RFC 3339 timestamps in UTC: written with milliseconds, read with or without fractional seconds.
public struct RFC3339DateTranscoder: DateTranscoder {
    public init() {}

    public func encode(_ date: Date) throws -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    public func decode(_ text: String) throws -> Date {
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) { return date }
        if let date = try? Date.ISO8601FormatStyle().parse(text) { return date }
        throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "not an RFC 3339 timestamp: \(text.prefix(40))"))
    }
}
