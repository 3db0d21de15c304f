import Foundation

/// A version as the `If-Match` header (`--if-match VERSION`, a store setting's version as read): the entity tags of
/// products and store settings are their quoted versions.
enum EntityTag {
    /// `3`, `"3"` and `W/"3"` all name version 3; nil stays nil.
    static func header(_ version: String?) -> String? {
        guard var text = version?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        if text.hasPrefix("W/") { text.removeFirst(2) }
        text = text.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        return "\"\(text)\""
    }
}
