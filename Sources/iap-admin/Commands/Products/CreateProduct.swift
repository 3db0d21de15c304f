import ArgumentParser
import CatalogAPI
import Foundation

extension Products {
    /// `products create`: one product from options, or one or many from a JSON file.
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create",
            abstract: "Create a product from options, or products from a JSON file.",
            discussion: """
                Only the productId, --name and --type are needed; everything else may come later (see `products \
                edit`), and `approve` checks that the product is complete. A productId is never reusable in the app, \
                not even after the product is deleted.

                --file takes the API's create body (ProductCreate of openapi.yaml): one object, or an array of them \
                to create many (with a progress bar on a terminal; each failure is reported and the others go on). \
                Use - for stdin.

                Examples:
                  admin-cli products create coins.100 --app com.example.game --type consumable --name "100 coins" \\
                    --price 0.99 --display-name "100 Coins" --description "A pile of shiny coins"
                  admin-cli products create pro.monthly --type auto-renewable --name "Pro monthly" \\
                    --group "Pro" --level 1 --duration P1M --price 4.99
                  admin-cli products create --app com.example.game --file products.json
                """)

        @Argument(help: "The new product's identifier (A-Z a-z 0-9 . _ -, at most 100).")
        var productID: String?

        @Option(help: "The app's bundle id (default: $IAP_APP or the profile's app).")
        var app: String?

        @Option(name: .customLong("type"), help: "The purchase type.")
        var type: Components.Schemas.PurchaseType?

        @OptionGroup(title: "Fields")
        var fields: ProductFields

        @Option(help: ArgumentHelp("A JSON file holding a product or an array of products (- for stdin).", valueName: "path"))
        var file: String?

        @OptionGroup var global: GlobalOptions

        func validate() throws {
            if file != nil {
                guard productID == nil, type == nil, fields.isEmpty else {
                    throw ValidationError("--file holds the products: give no PRODUCT_ID, --type or field options with it")
                }
            } else {
                guard productID != nil else { throw ValidationError("give the new product's PRODUCT_ID (or --file)") }
                guard type != nil else { throw ValidationError("give the product's --type (\(Components.Schemas.PurchaseType.allValueStrings.joined(separator: ", ")))") }
                guard fields.referenceName != nil else { throw ValidationError("give the product's reference --name") }
            }
        }

        func run() async throws {
            let session = try Session(global)
            let app = try session.app(app)
            if let file {
                let data = try JSONFile.read(file)
                if JSONFile.isArray(data) {
                    let products = try JSONFile.decodeStrictly([Components.Schemas.ProductCreate].self, from: data, path: file)
                    try await createMany(products, app: app, session: session)
                } else {
                    let product = try JSONFile.decodeStrictly(Components.Schemas.ProductCreate.self, from: data, path: file)
                    await show(try await create(product, app: app, session: session), app: app, session: session)
                }
            } else {
                await show(try await create(try await body(app: app, session: session), app: app, session: session),
                           app: app, session: session)
            }
        }

        /// The create body the options describe.
        private func body(app: String, session: Session) async throws -> Components.Schemas.ProductCreate {
            guard let productID, let type, let referenceName = fields.referenceName else {
                throw ValidationError("give PRODUCT_ID, --type and --name")
            }
            var defaultLocale = "en-US"
            if fields.locale == nil, fields.displayName != nil || fields.description != nil {
                defaultLocale = try await session.fetchApp(app).primaryLocale
            }
            return Components.Schemas.ProductCreate(
                productId: productID, referenceName: referenceName, _type: type,
                price: fields.parsedPrice(currentCurrency: nil),
                territoryPrices: try fields.parsedTerritoryPrices(),
                localizations: try fields.localizations(merging: [], defaultLocale: defaultLocale),
                familyShareable: fields.familyShareable, clearedForSale: fields.clearedForSale,
                reviewNote: fields.reviewNote,
                subscriptionGroupId: try await fields.group.asyncMap { try await session.groupID($0, app: app) },
                level: fields.level, duration: fields.duration, introductoryOffer: fields.introductoryOffer)
        }

        private func create(_ product: Components.Schemas.ProductCreate, app: String,
                            session: Session) async throws -> Components.Schemas.Product {
            try await session.answer({ try await $0.createProduct(path: .init(bundleId: app), body: .json(product)) }) {
                try $0.created.body.json
            }
        }

        private func show(_ product: Components.Schemas.Product, app: String, session: Session) async {
            await session.show(identifiers: [product.productId]) {
                let console = session.console
                console.print("Created \(console.paint(product.productId, .bold)) (\(product._type.rawValue)) in \(app): "
                    + console.paint(product.state.rawValue, Display.style(of: product.state)) + ", version \(product.version)")
                ProductView.printMissing(product, on: console)
            }
        }

        /// Creates each product in turn; a failure is reported and the rest go on. Fails at the end if any did.
        private func createMany(_ products: [Components.Schemas.ProductCreate], app: String, session: Session) async throws {
            let console = session.console
            let progress = ProgressBar(total: products.count, console: console)
            var created = 0
            var failures: [(productID: String, failure: CommandFailure)] = []
            for (index, product) in products.enumerated() {
                progress.update(done: index, product.productId)
                do {
                    let answer = try await create(product, app: app, session: session)
                    created += 1
                    await session.show(identifiers: [answer.productId]) {}
                } catch let failure as CommandFailure {
                    // Cannot reach the server, or may not: the rest would fail the same way.
                    if [.unavailable, .notAuthorized].contains(failure.status) { progress.finish(); throw failure }
                    failures.append((product.productId, failure))
                    progress.note(console.paintError("failed:", .red) + " \(product.productId): \(failure.message)")
                    for detail in failure.details { progress.note("    " + detail) }
                }
            }
            progress.update(done: products.count, "done")
            progress.finish()
            if session.format == .human {
                console.print("Created \(created) of \(products.count) products in \(app).")
            }
            guard failures.isEmpty else {
                let status = failures.first?.failure.status ?? .refused
                throw CommandFailure(status, "\(failures.count) of \(products.count) products could not be created",
                                     details: failures.map { "\($0.productID): \($0.failure.message)" })
            }
        }
    }
}

extension Optional {
    /// `map` for an async transform.
    func asyncMap<Result>(_ transform: (Wrapped) async throws -> Result) async rethrows -> Result? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
