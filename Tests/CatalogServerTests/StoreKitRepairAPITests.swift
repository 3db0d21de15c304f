import CatalogAPI
import CatalogCore
import CatalogTestSupport
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import StoreKitConfiguration
import Testing

/// Real files that earlier imports refused, over HTTP: each repair in the answer and in the product's history,
/// what the rules refuse skipped and named when asked.
@Suite("StoreKit repairs over HTTP")
struct StoreKitRepairAPITests {
    static func importFile(_ api: API, _ app: String, _ body: String, name: String, key: String, query: String = "")
        async throws -> TestResponse
    {
        try await api.send(.post, StoreKitAPITests.importPath(app, "?fileName=\(name)\(query)"), key: key, body: body,
                           headers: StoreKitAPITests.file)
    }

    @Test("each variant imports as users expect, its repairs named in the answer and in the history", arguments: [
        ("shared", "RevenueCat__purchases-ios__RevenueCat_IntegrationPurchaseTesterConfiguration.storekit", 6),
        ("null", StoreKitVariant.nullReferenceName.fileName, 1),
        ("offer", StoreKitVariant.emptyOfferPrice.fileName, 0),
        ("free", StoreKitVariant.freeNonConsumable.fileName, 0),
    ])
    func variants(_ name: String, _ fileName: String, _ repairs: Int) async throws {
        let fixture = try await APIFixture.forSuite("storekit_repairs_api")
        let keys = try await fixture.keys()
        try await fixture.run { api in
            let app = "com.repairs.\(name)"
            try await api.createApp(app, key: keys.admin)
            let text = try StoreKitVariant(rawValue: String(fileName.dropLast(".storekit".count)))?.text
                ?? String(decoding: try StoreKitFixture.purchaseTester.data, as: UTF8.self)
            let result = try expect(try await Self.importFile(api, app, text, name: fileName, key: keys.developer), .ok,
                                    as: Components.Schemas.StoreKitImport.self)
            #expect(result.repairs?.count == repairs && result.summary.repaired == repairs)
            #expect(result.products.allSatisfy { $0.outcome == .create })
            for repair in result.repairs ?? [] {
                let productID = try #require(repair.productId)
                let created = try #require(try await api.history(app, productID, key: keys.auditor).first)
                #expect(created.reason == "imported from StoreKit file \"\(fileName)\"; repaired: referenceName \(repair.message)")
                #expect(try await api.product(app, productID, key: keys.auditor).referenceName == repair.to)
            }
            if name == "free" {
                let trial = try await api.product(app, "lifetime", key: keys.auditor)
                #expect(trial.price?.amount == "0" && trial.missingForApproval.isEmpty == false)
            }
            // The draft export gives the file back as it was, repairs undone.
            let exported = try await api.send(.get, StoreKitAPITests.exportPath(app, "?revision=draft"), key: keys.auditor)
            #expect(String(buffer: exported.body) == text + (text.hasSuffix("\n") ? "" : "\n"))
        }
    }

    @Test("skipInvalid: the products the rules refuse are skipped and named, the rest imported")
    func skipInvalid() async throws {
        let fixture = try await APIFixture.forSuite("storekit_repairs_api")
        let keys = try await fixture.keys()
        try await fixture.run { api in
            let app = "com.repairs.skip"
            try await api.createApp(app, key: keys.admin)
            let file = try StoreKitAPITests.invalidFile()
            let refused = try problem(try await Self.importFile(api, app, file, name: "bad.storekit", key: keys.developer),
                                      .unprocessableContent, "validation-failed")
            #expect((refused.errors ?? []).count == 6)
            // The made-up type and the duplicated productID break the format: those refuse the file whatever is asked.
            _ = try problem(try await Self.importFile(api, app, file, name: "bad.storekit", key: keys.developer,
                                                      query: "&skipInvalid=true"), .unprocessableContent, "validation-failed")
            var json = try StoreKitJSON(parsing: try StoreKitFixture.backyardBirds.data)
            let subscriptions: [StoreKitJSONPath.Component] = [.key("subscriptionGroups"), .index(0), .key("subscriptions")]
            json = json.replacing(subscriptions + [.index(1), .key("displayPrice")], with: "0")
            json = json.replacing([.key("products"), .index(1), .key("localizations"), .index(0), .key("displayName")],
                                  with: .string(String(repeating: "n", count: 31)))
            let result = try expect(try await Self.importFile(api, app, XcodeJSONWriter.string(for: json), name: "b.storekit",
                                                              key: keys.developer, query: "&skipInvalid=true"),
                                    .ok, as: Components.Schemas.StoreKitImport.self)
            #expect(result.skipped?.map(\.path) == ["products[1]", "subscriptionGroups[0].subscriptions[1]"])
            #expect(result.skipped?.first?.problems.first?.field == "products[1].localizations[0].displayName")
            #expect(result.summary.create == 7 && result.summary.skipped == 2)
            let listed = try expect(try await api.send(.get, "/v1/apps/\(app)/products?limit=200", key: keys.auditor), .ok,
                                    as: Components.Schemas.ProductPage.self)
            #expect(listed.items.count == 7)
        }
    }
}
