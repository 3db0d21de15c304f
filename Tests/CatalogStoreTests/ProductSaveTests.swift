@testable import CatalogStore
import CatalogCore
import CatalogTestSupport
import Foundation
import Testing

/// An action is saved with only the product's lifecycle columns when nothing else changed
/// (`Product.changesOnlyLifecycle(from:)`, LifecycleRuleTests), with every column otherwise; either way the
/// product read back is the product saved, and a stale one is not saved.
@Suite("Saving a product", .timeLimit(.minutes(6)))
struct ProductSaveTests {
    @Test("the product read back after each action is the product saved, through either statement")
    func readBack() async throws {
        let url = try await TestDatabase.forSuite("product_save")
        try await TestDatabase.withDatabase(url) { database in
            let app = try await StoreFixtures.app(database, "com.example.save")
            var product = try await StoreFixtures.product(database, in: app)
            for action: ReviewAction in [.approve, .submit, .startReview, .accept, .removeFromSale, .restoreToSale] {
                let previous = product
                product = try await StoreFixtures.perform(action, on: product, in: app, database)
                let stored = try #require(try await database.products.find(app.bundleID, product.productID))
                // PostgreSQL keeps times to the microsecond.
                #expect(stored.referenceName == product.referenceName && stored.price == product.price
                        && stored.territoryPrices == product.territoryPrices
                        && stored.introductoryOffer == product.introductoryOffer && stored.content == product.content
                        && stored.liveContent == product.liveContent && stored.state == product.state
                        && stored.version == product.version && stored.submittedFrom == product.submittedFrom
                        && stored.everSubmitted == product.everSubmitted && stored.clearedForSale == product.clearedForSale
                        && abs(stored.updatedAt.timeIntervalSince(product.updatedAt)) < 0.001, "after \(action)")
                // The version read is stale now: saving over it again changes nothing.
                let again = try previous.performing(action, by: .admin, reason: nil, in: app, at: Date())
                let saved = try await database.products.save(again, replacing: previous, cause: action.rawValue,
                                                             event: StoreFixtures.created(again))
                #expect(!saved, "\(action) saved twice")
            }
        }
    }
}
