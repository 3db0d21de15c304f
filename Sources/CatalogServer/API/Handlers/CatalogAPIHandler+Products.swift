import CatalogAPI
import CatalogCore
import CatalogStore
import HTTPTypes

extension CatalogAPIHandler {
    /// How often an edit without `If-Match` is retried after losing a race: edits of different fields by
    /// different people should both land, an edit should not fail because someone else was quicker.
    static let editAttempts = 3

    func createProduct(_ input: Operations.CreateProduct.Input) async throws -> Operations.CreateProduct.Output {
        let key = try Access.require(.editCatalog)
        let app = try await visibleApp(input.path.bundleId, for: key)
        guard case .json(let body) = input.body else { throw Problem(status: .unsupportedMediaType) }
        let product = try Product.create(try NewProduct(body), in: app, at: now())
        try await database.products.create(product, event: record(
            .created, by: key, app: app.bundleID, productID: product.productID, productVersion: product.version,
            to: product.state, changes: product.creationChanges))
        return .created(.init(headers: .init(eTag: EntityTag.of(product)),
                              body: .json(.init(product, app: app, role: key.role))))
    }

    func listProducts(_ input: Operations.ListProducts.Input) async throws -> Operations.ListProducts.Output {
        let key = try Access.require(.readCatalog)
        let app = try await visibleApp(input.path.bundleId, for: key)
        let limit = try PageCursor.limit(input.query.limit)
        try QueryParameterRules.require(QueryParameterRules.text(input.query.q, "q", 1...100))
        let filter = ProductFilter(state: input.query.state.map { EnumMapping.convert($0) },
                                   type: input.query._type.map { EnumMapping.convert($0) }, text: input.query.q)
        let fetched = try await database.products.list(app.bundleID, filter: filter,
                                                       after: try PageCursor.decode(input.query.cursor), limit: limit + 1)
        let (products, next) = PageCursor.page(fetched, limit: limit, key: \.productID)
        return .ok(.init(body: .json(.init(items: products.map { .init($0, app: app, role: key.role) },
                                           nextCursor: next))))
    }

    func getProduct(_ input: Operations.GetProduct.Input) async throws -> Operations.GetProduct.Output {
        let key = try Access.require(.readCatalog)
        if let instant = input.query.asOf {
            let app = try await visibleApp(input.path.bundleId, for: key)
            // The past, rebuilt from history: nothing can be done there, so no actions are offered.
            let events = try await database.history.forProduct(app.bundleID, input.path.productId, until: instant)
            guard let product = try Product.replaying(events) else {
                throw CatalogError.notFound("no product \(input.path.productId) in \(app.bundleID) at \(instant)")
            }
            return .ok(.init(body: .json(.init(product, app: app, role: nil))))
        }
        let (app, product) = try await visibleProduct(input.path.bundleId, input.path.productId, for: key)
        return .ok(.init(headers: .init(eTag: EntityTag.of(product)),
                         body: .json(.init(product, app: app, role: key.role))))
    }

    func updateProduct(_ input: Operations.UpdateProduct.Input) async throws -> Operations.UpdateProduct.Output {
        let key = try Access.require(.editCatalog)
        let app = try await visibleApp(input.path.bundleId, for: key)
        guard case .json(let body) = input.body else { throw Problem(status: .unsupportedMediaType) }
        let edit = try ProductEdit(body)
        for _ in 0..<Self.editAttempts {
            let product = try await existingProduct(app, input.path.productId)
            try EntityTag.check(input.headers.ifMatch, against: product)
            guard let change = try product.applying(edit, in: app, at: now()) else {
                return .ok(.init(headers: .init(eTag: EntityTag.of(product)),
                                 body: .json(.init(product, app: app, role: key.role))))
            }
            let edited = change.product
            let saved = try await database.products.save(edited, replacing: product, cause: StateChange.editCause,
                                                         event: record(
                .edited, by: key, app: app.bundleID, productID: edited.productID, productVersion: edited.version,
                from: change.fromState == edited.state ? nil : change.fromState,
                to: change.fromState == edited.state ? nil : edited.state, changes: change.changes))
            if saved {
                return .ok(.init(headers: .init(eTag: EntityTag.of(edited)),
                                 body: .json(.init(edited, app: app, role: key.role))))
            }
            if input.headers.ifMatch != nil {
                throw CatalogError.preconditionFailed(current: try await existingProduct(app, input.path.productId).version)
            }
        }
        throw CatalogError.conflict("the product kept changing while this edit was applied; read it again and retry")
    }

    func deleteProduct(_ input: Operations.DeleteProduct.Input) async throws -> Operations.DeleteProduct.Output {
        let key = try Access.require(.editCatalog)
        let (app, product) = try await visibleProduct(input.path.bundleId, input.path.productId, for: key)
        try EntityTag.check(input.headers.ifMatch, against: product)
        guard product.isDeletable else {
            throw CatalogError.conflict("only a product that was never submitted can be deleted", state: product.state)
        }
        let deleted = try await database.products.delete(product, event: record(
            .deleted, by: key, app: app.bundleID, productID: product.productID, productVersion: product.version + 1,
            from: product.state))
        guard deleted else {
            // It changed or went meanwhile: answer what is true now.
            let current = try await existingProduct(app, input.path.productId)
            throw input.headers.ifMatch != nil
                ? CatalogError.preconditionFailed(current: current.version)
                : CatalogError.conflict("the product changed while it was being deleted; read it again", state: current.state)
        }
        return .noContent(.init())
    }

    /// The app and its product, read together: an operation on one product reads both in one round trip.
    func visibleProduct(_ bundleID: String, _ productID: String, for key: APIKey) async throws -> (App, Product) {
        guard Identifiers.productIDProblems(productID).isEmpty else {
            throw Self.noProduct(productID, in: try await visibleApp(bundleID, for: key))
        }
        guard mayLookUp(app: bundleID, for: key),
              let (app, product) = try await database.products.findWithApp(bundleID, productID)
        else {
            throw Self.noApp(bundleID)
        }
        guard let product else { throw Self.noProduct(productID, in: app) }
        return (app, product)
    }

    func existingProduct(_ app: App, _ productID: String) async throws -> Product {
        guard Identifiers.productIDProblems(productID).isEmpty,
              let product = try await database.products.find(app.bundleID, productID)
        else {
            throw Self.noProduct(productID, in: app)
        }
        return product
    }

    static func noProduct(_ productID: String, in app: App) -> CatalogError {
        .notFound("no product \(productID) in \(app.bundleID)")
    }
}
