import ArgumentParser
import CatalogAPIConventions
import Foundation

/// An instant given on the command line: RFC 3339 as the API writes it (`2026-11-21T09:30:00Z`), or a
/// day (`2026-11-21`), which means its start in UTC.
struct TimeArgument: ExpressibleByArgument, Sendable {
    let date: Date

    init?(argument: String) {
        if let date = try? RFC3339DateTranscoder().decode(argument) {
            self.date = date
        } else if let day = try? Date(argument + "T00:00:00Z", strategy: .iso8601) {
            self.date = day
        } else {
            return nil
        }
    }

    static var defaultCompletionKind: CompletionKind { .default }
}
