import CatalogCore
import Foundation

/// A page's query as the API's typed values: each filter read once, every refusal collected so that a page
/// names all the fields at fault at once, as the API does.
struct ConsoleQuery {
    let form: ConsoleForm
    private(set) var problems: [FieldProblem] = []

    init(_ form: ConsoleForm) {
        self.form = form
    }

    /// The trimmed text of `name`, or `nil` when absent or blank.
    func text(_ name: String) -> String? { form.text(name) }

    /// The value of `name` among the API's enumeration `T`; another value is refused with `message`.
    mutating func value<T: RawRepresentable>(_ name: String, _ type: T.Type,
                                             message: String = "is not one of the values the API lists") -> T?
        where T.RawValue == String
    {
        guard let text = form.text(name) else { return nil }
        guard let value = T(rawValue: text) else {
            problems.append(FieldProblem(field: name, rule: "value", message: message))
            return nil
        }
        return value
    }

    /// The instant of `name`: RFC 3339, or a browser's `datetime-local` value, read as UTC.
    mutating func instant(_ name: String) -> Date? {
        guard let text = form.text(name) else { return nil }
        guard let date = Self.instant(text) else {
            problems.append(FieldProblem(field: name, rule: "format",
                                         message: "must be a time such as 2026-11-21T10:00 (UTC) or 2026-11-21T10:00:00Z"))
            return nil
        }
        return date
    }

    /// Throws the refusals collected so far, naming each field; nothing when every filter was read.
    func check() throws {
        guard problems.isEmpty else { throw CatalogError.validationFailed(problems) }
    }

    /// RFC 3339, or a browser's `datetime-local` value (no zone: UTC).
    static func instant(_ text: String) -> Date? {
        if let date = try? Date(text, strategy: .iso8601) { return date }
        for format in ["yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd'T'HH:mm:ss"] {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }
}
