import CatalogCore
import Crypto
import Foundation

/// The fingerprint of a plan: SHA-256 over what the plan was made from (the app's rules-bearing fields, every group
/// with its content, every product's version, every productId used, the file's own hash, the options), so that
/// apply can tell whether the catalog is still the one the plan was made from. A product's version grows with
/// each of its changes, so an edit between plan and apply changes the fingerprint; times are left out, as they
/// do not change what the plan does.
enum Fingerprint {
    static func of(_ snapshot: CatalogSnapshot, fileSHA256: String, allowDeletions: Bool) -> String {
        var lines = ["iap-catalog plan 1"]
        let app = snapshot.app
        lines.append(json(["app", app.bundleID, app.name, app.newsstand ? "newsstand" : "-", app.primaryLocale]))
        for group in snapshot.groups.sorted(by: { $0.id.uuidString < $1.id.uuidString }) {
            lines.append(json(["group", group.id.lowercaseText, group.referenceName]
                              + group.localizations.flatMap { [$0.locale, $0.name] }))
        }
        for product in snapshot.products.sorted(by: { $0.productID.utf8.lexicographicallyPrecedes($1.productID.utf8) }) {
            lines.append(json(["product", product.productID, String(product.version), product.state.rawValue]))
        }
        lines.append(json(["reserved"] + snapshot.reservedProductIDs.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }))
        lines.append(json(["file", fileSHA256, allowDeletions ? "allowDeletions" : "-"]))
        return SHA256.hash(data: Array(lines.joined(separator: "\n").utf8)).lowercaseHexadecimal
    }

    /// A list of strings as JSON, so that no value can pass for a separator.
    private static func json(_ values: [String]) -> String {
        "[" + values.map(CanonicalJSON.quoted).joined(separator: ",") + "]"
    }
}
