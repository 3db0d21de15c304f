import Foundation

/// Locales as the two sides write them: StoreKit files use an underscore (`en_US`, `zh_Hans`), the catalog
/// BCP 47 with a hyphen (`en-US`, `zh-Hans`). Language-only locales (`ja`) are the same on both sides.
enum StoreKitLocale {
    /// The catalog's tag for a file's locale; the catalog's own rules then check its shape.
    static func catalog(_ fileLocale: String) -> String {
        fileLocale.replacingOccurrences(of: "_", with: "-")
    }

    /// The file's spelling of a catalog locale.
    static func file(_ catalogLocale: String) -> String {
        catalogLocale.replacingOccurrences(of: "-", with: "_")
    }
}
