import ArgumentParser
import CatalogAPI
import Foundation

/// What every lifecycle command takes: the product, its app, why, and the version it must still be at.
struct ActionOptions: ParsableArguments {
    @Argument(help: "The product's identifier.")
    var productID: String

    @Option(help: "The app's bundle id (default: $IAP_APP or the profile's app).")
    var app: String?

    @Option(help: ArgumentHelp("Why: kept in the product's history.", valueName: "text"))
    var reason: String?

    @Option(name: .customLong("if-match"), help: ArgumentHelp("Act only if the product is still at this version (see products show), else exit 67.", valueName: "version"))
    var ifMatch: String?

    @OptionGroup var global: GlobalOptions
}

/// A command that moves a product through the review lifecycle with one action of the API.
protocol ProductActionCommand: AsyncParsableCommand {
    /// The API's action.
    static var action: Components.Schemas.Action { get }
    var options: ActionOptions { get }
}

extension ProductActionCommand {
    /// Request changes and reject tell the developer why; the API requires it.
    static var needsReason: Bool { action == .requestChanges || action == .reject }

    func validate() throws {
        if Self.needsReason, (options.reason ?? "").trimmingCharacters(in: .whitespaces).isEmpty {
            throw ValidationError("\(ActionName.command(for: Self.action)) needs --reason: the developer reads it")
        }
    }

    /// Performs the action and says where the product is now and what may come next. A refusal lists the
    /// actions allowed from the current state; a failed approve lists what is missing, item by item.
    func perform() async throws {
        let session = try Session(options.global)
        let app = try session.app(options.app)
        let request = Components.Schemas.ActionRequest(action: Self.action, reason: options.reason)
        let product = try await session.answer({
            try await $0.performAction(path: .init(bundleId: app, productId: options.productID),
                                       headers: .init(ifMatch: EntityTag.header(options.ifMatch)), body: .json(request))
        }) { try $0.ok.body.json }
        await session.show(identifiers: [product.productId]) {
            let console = session.console
            console.print("\(console.paint(product.productId, .bold)): \(ActionName.command(for: Self.action)) done, now "
                + console.paint(product.state.rawValue, Display.style(of: product.state))
                + " (version \(product.version)\(product.onSale ? ", on sale" : ""))")
            console.print("Next: \(Display.actions(product.allowedActions))")
        }
    }
}
