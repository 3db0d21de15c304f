import CatalogCore
import CatalogStore
import CatalogTestSupport
import Foundation
import PostgresNIO
import Testing

/// A whole catalog read at once and changed in one transaction; the price rule and the deferrable uniqueness rules
/// that such a transaction passes through.
@Suite("Catalog repository")
struct CatalogRepositoryTests {
    static func edit(_ product: Product, _ edit: ProductEdit, app: App) throws -> CatalogWrites.ProductWrite {
        let change = try #require(try product.applying(edit, in: app, at: Date()))
        return CatalogWrites.ProductWrite(product: change.product, previous: product, event: HistoryRecord(
            kind: .edited, bundleID: app.bundleID, productID: product.productID, productVersion: change.product.version,
            actor: StoreFixtures.actor, reason: "swap", changes: change.changes))
    }

    @Test("the snapshot holds the app, its groups, its products and every productId it used")
    func snapshot() async throws {
        let url = try await TestDatabase.forSuite("catalog_repository")
        try await TestDatabase.withDatabase(url) { database in
            let app = try await StoreFixtures.app(database, "com.catalog.snapshot")
            let kept = try await StoreFixtures.product(database, in: app, id: "kept")
            let gone = try await StoreFixtures.product(database, in: app, id: "gone")
            _ = try await database.products.delete(gone, event: HistoryRecord(
                kind: .deleted, bundleID: app.bundleID, productID: "gone", productVersion: 2, actor: StoreFixtures.actor))
            let snapshot = try #require(try await database.catalog.snapshot(app.bundleID))
            #expect(snapshot.app.bundleID == app.bundleID && snapshot.products.map(\.productID) == [kept.productID])
            #expect(snapshot.reservedProductIDs == ["kept", "gone"])
            #expect(try await database.catalog.snapshot("com.catalog.none") == nil)
        }
    }

    @Test("two reference names swapped in one apply: each write alone breaks the rule, the whole does not")
    func swapsNames() async throws {
        let url = try await TestDatabase.forSuite("catalog_repository")
        try await TestDatabase.withDatabase(url) { database in
            let app = try await StoreFixtures.app(database, "com.catalog.swap")
            _ = try await StoreFixtures.product(database, in: app, id: "a")
            _ = try await StoreFixtures.product(database, in: app, id: "b")
            let count = try await database.catalog.apply(app.bundleID) { snapshot in
                var writes = CatalogWrites()
                let a = snapshot.products[0], b = snapshot.products[1]
                writes.editedProducts = [try Self.edit(a, ProductEdit(referenceName: b.referenceName), app: snapshot.app),
                                         try Self.edit(b, ProductEdit(referenceName: a.referenceName), app: snapshot.app)]
                return (writes, writes.editedProducts.count)
            }
            #expect(count == 2)
            let names = try #require(try await database.catalog.snapshot(app.bundleID)).products.map(\.referenceName)
            #expect(names == ["Ref b", "Ref a"])
            // Outside such a transaction the rule is checked at once, as before.
            let b = try #require(try await database.products.find(app.bundleID, "b"))
            let taken = try Self.edit(b, ProductEdit(referenceName: "Ref b"), app: app)
            await #expect(throws: CatalogError.conflict("another product of the app already has this referenceName")) {
                _ = try await database.products.save(taken.product, replacing: b, cause: StateChange.editCause, event: taken.event)
            }
        }
    }

    @Test("a decision that throws writes nothing; a refusal of the database rolls everything back")
    func allOrNothing() async throws {
        let url = try await TestDatabase.forSuite("catalog_repository")
        try await TestDatabase.withDatabase(url) { database in
            let app = try await StoreFixtures.app(database, "com.catalog.nothing")
            _ = try await StoreFixtures.product(database, in: app, id: "a")
            await #expect(throws: CatalogError.conflict("changed")) {
                try await database.catalog.apply(app.bundleID) { _ -> (CatalogWrites, Int) in throw CatalogError.conflict("changed") }
            }
            await #expect(throws: CatalogError.conflict("another product of the app already has this referenceName")) {
                try await database.catalog.apply(app.bundleID) { snapshot in
                    var writes = CatalogWrites()
                    let a = snapshot.products[0]
                    writes.editedProducts = [try Self.edit(a, ProductEdit(referenceName: "Taken"), app: snapshot.app)]
                    let twin = try Product.create(NewProduct(productID: "twin", type: .consumable,
                                                             fields: ProductEdit(referenceName: "Taken")), in: snapshot.app, at: Date())
                    writes.newProducts = [CatalogWrites.ProductWrite(product: twin, previous: nil,
                                                                     event: StoreFixtures.created(twin))]
                    return (writes, 0)
                }
            }
            let after = try #require(try await database.catalog.snapshot(app.bundleID))
            #expect(after.products.map(\.referenceName) == ["Ref a"] && after.reservedProductIDs == ["a"])
        }
    }

    @Test("the database repeats the price rule: a consumable is never free, a non-consumable may be")
    func priceByType() async throws {
        let url = try await TestDatabase.forSuite("catalog_repository")
        try await TestDatabase.withDatabase(url) { database in
            _ = try await StoreFixtures.app(database, "com.catalog.price")
            func insert(_ id: String, _ type: String, _ amount: String) -> String {
                """
                WITH created AS (
                    INSERT INTO products (app, product_id, type, reference_name, price_currency, price_amount)
                    VALUES ('com.catalog.price', '\(id)', '\(type)', '\(id)', 'USD', \(amount)) RETURNING product_id)
                SELECT history_append(jsonb_build_object('kind', 'created', 'app', 'com.catalog.price', 'productId', product_id,
                                      'productVersion', 1, 'actor', jsonb_build_object('name', 'raw', 'role', 'admin')))
                FROM created
                """
            }
            try await StoreFixtures.run(insert("trial", "NON_CONSUMABLE", "0"), in: database)
            for (id, type, amount) in [("coins", "CONSUMABLE", "0"), ("pass", "NON_RENEWING_SUBSCRIPTION", "0.00"),
                                       ("news", "FREE_SUBSCRIPTION", "0.99")] {
                await #expect(throws: PSQLError.self, "\(type) at \(amount)") {
                    try await StoreFixtures.run(insert(id, type, amount), in: database)
                }
            }
        }
    }
}
