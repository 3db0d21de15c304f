import CatalogAPI
import Foundation

/// Reads a command needs before it can say what it means: an app's primary locale, a group named by its
/// reference name, a product's current content.
extension Session {
    func fetchApp(_ bundleID: String) async throws -> Components.Schemas.App {
        try await answer({ try await $0.getApp(path: .init(bundleId: bundleID)) }) { try $0.ok.body.json }
    }

    /// The product now, or as it was at `asOf` (rebuilt by the server from its history).
    func fetchProduct(_ productID: String, app: String, asOf: Date? = nil) async throws -> Components.Schemas.Product {
        try await answer({
            try await $0.getProduct(path: .init(bundleId: app, productId: productID), query: .init(asOf: asOf))
        }) { try $0.ok.body.json }
    }

    func fetchGroups(app: String) async throws -> [Components.Schemas.SubscriptionGroup] {
        try await answer({ try await $0.listSubscriptionGroups(path: .init(bundleId: app)) }) { try $0.ok.body.json.items }
    }

    /// The id of the group `text` names: an id as it is, otherwise the group with that reference name.
    func groupID(_ text: String, app: String) async throws -> String {
        if UUID(uuidString: text) != nil { return text.lowercased() }
        let matches = try await fetchGroups(app: app).filter { $0.referenceName == text }
        guard let group = matches.first else {
            throw CommandFailure(.notFound, "no subscription group named \"\(text)\" in \(app)",
                                 hint: "list them with: admin-cli groups list --app \(app)")
        }
        guard matches.count == 1 else {
            throw CommandFailure(.refused, "\(matches.count) subscription groups are named \"\(text)\" in \(app); give the id")
        }
        return group.id
    }
}
