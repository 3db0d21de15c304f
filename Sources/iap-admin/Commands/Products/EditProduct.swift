import ArgumentParser
import CatalogAPI

extension Products {
    /// `products edit`: change some fields of a product, from options or a JSON file.
    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "edit",
            abstract: "Edit a product's fields from options or a JSON file; --clear resets optional ones.",
            discussion: """
                Only the fields given change. --display-name/--description update the localization of --locale \
                (default: the app's primary locale) and keep the others; --remove-locale drops one. Reference name, \
                prices and the introductory offer change at once in any state but REJECTED. Reviewed fields \
                (localizations, review note, family sharing, group, level, duration) may be edited before \
                submission, after changes were requested, and once live (then into a draft that goes live when \
                the change is accepted: see `submit-change`); editing an approved product sends it back to \
                PENDING_DEVELOPER_APPROVAL.

                --file takes the API's edit body (ProductUpdate of openapi.yaml). Clearable fields: \
                \(Components.Schemas.ClearableField.allValueStrings.joined(separator: ", ")).

                Examples:
                  admin-cli products edit coins.100 --app com.example.game --price 1.09 --name "100 coins (new)"
                  admin-cli products edit coins.100 --locale fr-FR --display-name "100 pièces" --description "Des pièces"
                  admin-cli products edit pro.monthly --clear introductoryOffer --if-match 4
                  admin-cli products edit coins.100 --file edit.json
                """)

        @Argument(help: "The product's identifier.")
        var productID: String

        @Option(help: "The app's bundle id (default: $IAP_APP or the profile's app).")
        var app: String?

        @OptionGroup(title: "Fields")
        var fields: ProductFields

        @Option(name: .customLong("remove-locale"), help: ArgumentHelp("Remove this locale's localization (repeat for more).", valueName: "locale"))
        var removedLocales: [String] = []

        @Option(help: "Reset an optional field to no value (repeat for more).")
        var clear: [Components.Schemas.ClearableField] = []

        @Option(help: ArgumentHelp("A JSON file with the fields to change (- for stdin).", valueName: "path"))
        var file: String?

        @Option(name: .customLong("if-match"), help: ArgumentHelp("Edit only if the product is still at this version, else exit 67.", valueName: "version"))
        var ifMatch: String?

        @OptionGroup var global: GlobalOptions

        func validate() throws {
            if file != nil, !fields.isEmpty || !removedLocales.isEmpty {
                throw ValidationError("--file holds the changes: give no field options with it (--clear is fine)")
            }
            if file == nil, fields.isEmpty, removedLocales.isEmpty, clear.isEmpty {
                throw ValidationError("nothing to change: give field options, --remove-locale, --clear or --file")
            }
        }

        func run() async throws {
            let session = try Session(global)
            let app = try session.app(app)
            var edit: Components.Schemas.ProductUpdate
            if let file {
                edit = try JSONFile.decodeStrictly(Components.Schemas.ProductUpdate.self, from: try JSONFile.read(file), path: file)
            } else {
                edit = try await body(app: app, session: session)
            }
            if !clear.isEmpty { edit.clear = (edit.clear ?? []) + clear }
            let product = try await session.answer({
                try await $0.updateProduct(path: .init(bundleId: app, productId: productID),
                                           headers: .init(ifMatch: EntityTag.header(ifMatch)), body: .json(edit))
            }) { try $0.ok.body.json }
            await session.show(identifiers: [product.productId]) {
                let console = session.console
                console.print("Edited \(console.paint(product.productId, .bold)): "
                    + console.paint(product.state.rawValue, Display.style(of: product.state))
                    + ", version \(product.version)" + (product.draft != nil && product.live != nil ? " (draft differs from live)" : ""))
                ProductView.printMissing(product, on: console)
            }
        }

        /// The edit body the options describe; localizations are merged into the product's current ones.
        private func body(app: String, session: Session) async throws -> Components.Schemas.ProductUpdate {
            let touchesLocalizations = fields.displayName != nil || fields.description != nil || !removedLocales.isEmpty
            let current = (fields.price != nil && fields.currency == nil) || touchesLocalizations ? try await session.fetchProduct(productID, app: app) : nil
            var localizations: [Components.Schemas.Localization]?
            if touchesLocalizations, let current {
                var defaultLocale = "en-US"
                if fields.locale == nil, fields.displayName != nil || fields.description != nil {
                    defaultLocale = try await session.fetchApp(app).primaryLocale
                }
                var merged = try fields.localizations(merging: current.localizations, defaultLocale: defaultLocale)
                    ?? current.localizations
                for locale in removedLocales {
                    guard merged.contains(where: { $0.locale == locale }) else {
                        throw ValidationError("\(productID) has no localization for \(locale)")
                    }
                    merged.removeAll { $0.locale == locale }
                }
                localizations = merged
            }
            return Components.Schemas.ProductUpdate(
                referenceName: fields.referenceName, price: fields.parsedPrice(currentCurrency: current?.price?.currency),
                territoryPrices: try fields.parsedTerritoryPrices(), localizations: localizations,
                familyShareable: fields.familyShareable, clearedForSale: fields.clearedForSale,
                reviewNote: fields.reviewNote,
                subscriptionGroupId: try await fields.group.asyncMap { try await session.groupID($0, app: app) },
                level: fields.level, duration: fields.duration, introductoryOffer: fields.introductoryOffer)
        }
    }
}
