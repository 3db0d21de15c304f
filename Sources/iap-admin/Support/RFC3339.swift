import CatalogAPI
import Foundation

/// Times given on the command line, read as the API writes them.
enum RFC3339 {
    static func parse(_ text: String) throws -> Date {
        try RFC3339DateTranscoder().decode(text)
    }
}
