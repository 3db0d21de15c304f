import CatalogCore
import Foundation
import OpenAPIRuntime

/// The API's values as JSON where no generated handler writes them (NDJSON exports, the event stream, webhook
/// bodies): as the answers write them, keys sorted, dates RFC 3339 in UTC to the millisecond, one line.
enum AnswerJSON {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(RFC3339Text.milliseconds(date))
        }
        return encoder
    }()

    /// `value` on one line (no newline at its end); `{}` if it cannot be encoded, which the API's types always can.
    static func line(_ value: some Encodable) -> String {
        String(decoding: (try? encoder.encode(value)) ?? Data("{}".utf8), as: UTF8.self)
    }
}
