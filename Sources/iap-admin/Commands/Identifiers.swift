import ArgumentParser
import CatalogAPI

/// `identifiers`: what client apps see, from the public route, without a key.
struct Identifiers: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the product identifiers on sale, exactly as client apps get them (no key needed).",
        discussion: """
            Calls the public GET /v1/apps/{bundleId}/product-identifiers without a key, as an app does before \
            asking StoreKit for the products' details: one identifier per line, in byte order.

            Example:
              admin-cli identifiers --app com.example.game --type auto-renewable
            """)

    @Option(help: "The app's bundle id (default: $IAP_APP or the profile's app).")
    var app: String?

    @Option(name: .customLong("type"), help: "Only products of this purchase type.")
    var type: Components.Schemas.PurchaseType?

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let session = try Session(global, needsKey: false)
        let app = try session.app(app)
        let list = try await session.answer({
            try await $0.getProductIdentifiers(path: .init(bundleId: app), query: .init(_type: type))
        }) { output -> Components.Schemas.ProductIdentifiers? in
            // Not asked for (no If-None-Match is sent); nothing changed, so nothing to print.
            if case .notModified = output { return nil }
            if case .notFound = output {
                throw CommandFailure(.notFound, "no app \(app)", body: session.format == .json ? session.lastBody : nil)
            }
            return try output.ok.body.json
        }
        guard let list else { return }
        await session.show(identifiers: list.productIdentifiers) {
            for identifier in list.productIdentifiers { session.console.print(identifier) }
            if list.productIdentifiers.isEmpty {
                session.console.note("Nothing is on sale in \(app)\(type.map { " of type \($0.argumentName)" } ?? "").")
            }
        }
    }
}
