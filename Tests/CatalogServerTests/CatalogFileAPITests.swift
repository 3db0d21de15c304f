import CatalogAPI
import CatalogCore
import CatalogFiles
import CatalogTestSupport
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import OpenAPIRuntime
import Testing

/// Catalog files over HTTP: pull, plan and apply, all or nothing, exactly as planned, with the history naming the
/// file; the schema for editors.
@Suite("Catalog files over HTTP")
struct CatalogFileAPITests {
    static let yaml: HTTPFields = [.contentType: "application/yaml"]

    static func pull(_ api: API, _ app: String, key: String) async throws -> String {
        let response = try await api.send(.get, "/v1/apps/\(app)/catalog", key: key)
        #expect(response.status == .ok && response.headers[.contentType] == "application/yaml")
        return String(buffer: response.body)
    }

    static func plan(_ api: API, _ app: String, _ file: String, key: String, query: String = "")
        async throws -> Components.Schemas.CatalogPlan
    {
        try expect(try await api.send(.post, "/v1/apps/\(app)/catalog/plan?fileName=catalog.yaml\(query)", key: key,
                                      body: file, headers: yaml), .ok, as: Components.Schemas.CatalogPlan.self)
    }

    static func apply(_ api: API, _ app: String, _ file: String, fingerprint: String, key: String, query: String = "")
        async throws -> TestResponse
    {
        try await api.send(.post, "/v1/apps/\(app)/catalog/apply?fileName=catalog.yaml&fingerprint=\(fingerprint)\(query)",
                           key: key, body: file, headers: yaml)
    }

    /// An app with a group and products in several states: one on sale, one in review, one rejected, one new.
    static func populated(_ api: API, _ app: String, keys: APIFixture.Keys) async throws {
        try await api.createApp(app, key: keys.admin)
        let group = try await api.createGroup(app, key: keys.admin, name: "Pro")
        try await api.createProduct(app, "pro.monthly", type: .autoRenewableSubscription, key: keys.developer, groupID: group.id)
        try await api.createProduct(app, "coins.100", type: .consumable, key: keys.developer)
        try await api.createProduct(app, "waiting", type: .nonConsumable, key: keys.developer)
        try await api.createProduct(app, "rejected", type: .nonRenewingSubscription, key: keys.developer)
        for (id, actions) in [("pro.monthly", [ReviewAction.approve, .submit, .startReview, .accept]),
                              ("waiting", [.approve, .submit, .startReview]),
                              ("rejected", [.approve, .submit, .startReview, .reject])] {
            for action in actions { try await api.move(action, app, id, key: keys.admin) }
        }
    }

    @Test("pull, apply to an empty app, pull again: the same file; a plan of a pulled file is empty")
    func roundTrip() async throws {
        let fixture = try await APIFixture.forSuite("catalog_files_api")
        let keys = try await fixture.keys()
        try await fixture.run { api in
            try await Self.populated(api, "com.files.source", keys: keys)
            let pulled = try await Self.pull(api, "com.files.source", key: keys.auditor)
            #expect(pulled.contains("productId: pro.monthly") && !pulled.contains("app:"))
            let unchanged = try await Self.plan(api, "com.files.source", pulled, key: keys.developer)
            #expect(!unchanged.hasChanges && unchanged.applicable && unchanged.summary.unchanged == 4)

            try await api.createApp("com.files.copy", key: keys.admin)
            let plan = try await Self.plan(api, "com.files.copy", pulled, key: keys.developer)
            #expect(plan.summary.create == 4 && plan.summary.groupsCreate == 1 && plan.applicable)
            let applied = try expect(try await Self.apply(api, "com.files.copy", pulled, fingerprint: plan.fingerprint,
                                                          key: keys.developer), .ok, as: Components.Schemas.CatalogPlan.self)
            #expect(applied.fingerprint == plan.fingerprint)
            #expect(try await Self.pull(api, "com.files.copy", key: keys.developer) == pulled)
            let again = try await Self.plan(api, "com.files.copy", pulled, key: keys.developer)
            #expect(!again.hasChanges)
            // Every created product's event names the file and its hash.
            let events = try await api.history("com.files.copy", "pro.monthly", key: keys.auditor)
            #expect(events.first?.reason == "catalog file \"catalog.yaml\" (sha256 \(plan.fileSha256))")
        }
    }

    @Test("an update of a live product: unreviewed fields live at once, reviewed ones in a draft, submit_change to follow")
    func updateLiveProduct() async throws {
        let fixture = try await APIFixture.forSuite("catalog_files_api")
        let keys = try await fixture.keys()
        try await fixture.run { api in
            let app = "com.files.update"
            try await Self.populated(api, app, keys: keys)
            var file = try CatalogFile(reading: Array(try await Self.pull(api, app, key: keys.developer).utf8))
            let index = try #require(file.products.firstIndex { $0.productID == "pro.monthly" })
            file.products[index].price = Price(currency: "USD", amount: "5.99")
            file.products[index].localizations[0].displayName = "Pro Monthly Plus"
            let text = file.yaml()
            let plan = try await Self.plan(api, app, text, key: keys.developer)
            let step = try #require(plan.products.first { $0.productId == "pro.monthly" })
            #expect(step.action == .update && step.changes.map { "\($0.field):\($0.revision.rawValue)" }
                == ["price:live", "localizations:draft"])
            #expect(step.followUp == [.submitChange] && step.state == .readyForSale && step.stateAfter == nil)
            _ = try expect(try await Self.apply(api, app, text, fingerprint: plan.fingerprint, key: keys.developer), .ok,
                           as: Components.Schemas.CatalogPlan.self)
            let product = try await api.product(app, "pro.monthly", key: keys.auditor)
            #expect(product.state == .readyForSale && product.price?.amount == "5.99")
            #expect(product.live?.localizations?.first?.displayName == "Name pro.monthly")
            #expect(product.draft?.localizations?.first?.displayName == "Pro Monthly Plus")
            #expect(try await api.identifiers(app) == ["pro.monthly"])
            let edited = try #require(try await api.history(app, "pro.monthly", key: keys.auditor).last)
            #expect(edited.kind == .edited && edited.reason?.hasPrefix("catalog file \"catalog.yaml\" (sha256 ") == true)
            #expect(edited.changes.map(\.field) == ["price", "localizations"])
        }
    }

    @Test("a change between plan and apply: nothing applied, the answer is the new plan")
    func concurrentEdit() async throws {
        let fixture = try await APIFixture.forSuite("catalog_files_api")
        let keys = try await fixture.keys()
        try await fixture.run { api in
            let app = "com.files.race"
            try await api.createApp(app, key: keys.admin)
            try await api.createProduct(app, "coins.100", type: .consumable, key: keys.developer)
            var file = try CatalogFile(reading: Array(try await Self.pull(api, app, key: keys.developer).utf8))
            file.products[0].referenceName = "From the file"
            file.products.append(.init(productID: "coins.500", type: .consumable, referenceName: "500 coins"))
            let text = file.yaml()
            let plan = try await Self.plan(api, app, text, key: keys.developer)
            #expect(plan.summary.update == 1 && plan.summary.create == 1)
            // Someone edits the product meanwhile.
            let patched = try await api.send(.patch, "/v1/apps/\(app)/products/coins.100", key: keys.developer,
                                             json: ["referenceName": "Edited meanwhile"])
            #expect(patched.status == .ok)
            let before = try await api.history(app, "coins.100", key: keys.auditor).count
            let refused = try problem(try await Self.apply(api, app, text, fingerprint: plan.fingerprint, key: keys.developer),
                                      .conflict, "catalog-changed")
            let now = try #require(refused.plan)
            #expect(now.fingerprint != plan.fingerprint && now.applicable)
            #expect(now.products.first { $0.productId == "coins.100" }?.changes.first?.old?.value as? String == "Edited meanwhile")
            // Nothing was applied: no new product, no new event.
            #expect(try await api.product(app, "coins.100", key: keys.auditor).referenceName == "Edited meanwhile")
            #expect(try await api.send(.get, "/v1/apps/\(app)/products/coins.500", key: keys.auditor).status == .notFound)
            #expect(try await api.history(app, "coins.100", key: keys.auditor).count == before)
            // With the new plan's fingerprint it applies.
            let applied = try await Self.apply(api, app, text, fingerprint: now.fingerprint, key: keys.developer)
            #expect(applied.status == .ok)
            #expect(try await api.product(app, "coins.100", key: keys.auditor).referenceName == "From the file")
        }
    }

    @Test("every refusal named at its path; a refused plan applies nothing")
    func refusals() async throws {
        let fixture = try await APIFixture.forSuite("catalog_files_api")
        let keys = try await fixture.keys()
        try await fixture.run { api in
            let app = "com.files.refused"
            try await Self.populated(api, app, keys: keys)
            var file = try CatalogFile(reading: Array(try await Self.pull(api, app, key: keys.developer).utf8))
            func edit(_ id: String, _ change: (inout CatalogFile.Item) -> Void) throws {
                change(&file.products[try #require(file.products.firstIndex { $0.productID == id })])
            }
            try edit("waiting") { $0.localizations[0].description = "Changed in review" }
            try edit("rejected") { $0.referenceName = "Renamed" }
            try edit("coins.100") { $0.type = .nonConsumable }
            try edit("pro.monthly") { $0.clearedForSale = false }
            file.products.append(.init(productID: "bad id!", type: .consumable, referenceName: "Bad"))
            let text = file.yaml()
            let plan = try await Self.plan(api, app, text, key: keys.developer)
            #expect(!plan.applicable)
            #expect(Set(plan.refusals.map { "\($0.path):\($0.rule)" }) == [
                "products[0].type:immutable", "products[1]:state", "products[2]:state", "products[3]:state",
                "products[4].productId:pattern",
            ])
            let refused = try problem(try await Self.apply(api, app, text, fingerprint: plan.fingerprint, key: keys.developer),
                                      .conflict, "plan-refused")
            #expect(refused.plan?.refusals.count == 5)
            #expect(try await api.product(app, "coins.100", key: keys.auditor).referenceName == "Ref coins.100")
        }
    }

    @Test("two levels and two reference names swapped in one file: valid as a whole, applied as a whole")
    func swaps() async throws {
        let fixture = try await APIFixture.forSuite("catalog_files_api")
        let keys = try await fixture.keys()
        try await fixture.run { api in
            let app = "com.files.swap"
            try await api.createApp(app, key: keys.admin)
            let group = try await api.createGroup(app, key: keys.admin, name: "Pro")
            try await api.createProduct(app, "pro.monthly", type: .autoRenewableSubscription, key: keys.developer,
                                        groupID: group.id, level: 1)
            try await api.createProduct(app, "pro.yearly", type: .autoRenewableSubscription, key: keys.developer,
                                        groupID: group.id, level: 2)
            var file = try CatalogFile(reading: Array(try await Self.pull(api, app, key: keys.developer).utf8))
            (file.products[0].level, file.products[1].level) = (file.products[1].level, file.products[0].level)
            (file.products[0].referenceName, file.products[1].referenceName)
                = (file.products[1].referenceName, file.products[0].referenceName)
            let plan = try await Self.plan(api, app, file.yaml(), key: keys.developer)
            #expect(plan.applicable && plan.summary.update == 2, "\(plan.refusals)")
            let applied = try await Self.apply(api, app, file.yaml(), fingerprint: plan.fingerprint, key: keys.developer)
            #expect(applied.status == .ok, "\(String(buffer: applied.body))")
            let monthly = try await api.product(app, "pro.monthly", key: keys.auditor)
            #expect(monthly.level == 2 && monthly.referenceName == "Ref pro.yearly")
            #expect(try await Self.pull(api, app, key: keys.developer) == file.yaml())
        }
    }

    @Test("deletions only when asked, of products never submitted")
    func deletions() async throws {
        let fixture = try await APIFixture.forSuite("catalog_files_api")
        let keys = try await fixture.keys()
        try await fixture.run { api in
            let app = "com.files.delete"
            try await api.createApp(app, key: keys.admin)
            try await api.createProduct(app, "draft", type: .consumable, key: keys.developer)
            let empty = "version: 1\n"
            let keeping = try await Self.plan(api, app, empty, key: keys.developer)
            #expect(!keeping.hasChanges && keeping.kept.map(\.productId) == ["draft"])
            let deleting = try await Self.plan(api, app, empty, key: keys.developer, query: "&allowDeletions=true")
            #expect(deleting.products.map(\.action) == [.delete])
            // A fingerprint made with deletions is not one without them.
            #expect(try await Self.apply(api, app, empty, fingerprint: deleting.fingerprint, key: keys.developer).status
                == .conflict)
            let applied = try await Self.apply(api, app, empty, fingerprint: deleting.fingerprint, key: keys.developer,
                                               query: "&allowDeletions=true")
            #expect(applied.status == .ok)
            #expect(try await api.send(.get, "/v1/apps/\(app)/products/draft", key: keys.auditor).status == .notFound)
        }
    }

    @Test("what is not a catalog file: not YAML 400, the wrong shape 422 with every path, no fingerprint 422, JSON 415")
    func badInput() async throws {
        let fixture = try await APIFixture.forSuite("catalog_files_api")
        let keys = try await fixture.keys()
        try await fixture.run { api in
            let app = "com.files.bad"
            try await api.createApp(app, key: keys.admin)
            let path = "/v1/apps/\(app)/catalog/plan"
            _ = try problem(try await api.send(.post, path, key: keys.developer, body: "version: 1\nproducts\n  - x",
                                               headers: Self.yaml), .badRequest, "bad-request")
            let shape = try problem(try await api.send(.post, path, key: keys.developer,
                                                       body: "version: 1\nprodcts: []\n", headers: Self.yaml),
                                    .unprocessableContent, "validation-failed")
            #expect(shape.errors?.map(\.field) == ["prodcts"])
            _ = try problem(try await api.send(.post, path, key: keys.developer, body: "{\"version\": 1}"),
                            .unsupportedMediaType, "unsupported-media-type")
            let missing = try problem(try await api.send(.post, "/v1/apps/\(app)/catalog/apply", key: keys.developer,
                                                         body: "version: 1\n", headers: Self.yaml),
                                      .unprocessableContent, "validation-failed")
            #expect(missing.errors?.map(\.field) == ["fingerprint"])
            // JSON is YAML.
            #expect(try await Self.plan(api, app, "{\"version\": 1, \"products\": []}", key: keys.developer).applicable)
            // An auditor reads the file but may not plan.
            _ = try problem(try await api.send(.post, path, key: keys.auditor, body: "version: 1\n", headers: Self.yaml),
                            .forbidden, "forbidden")
        }
    }

    @Test("the schema is public, and is the repository's")
    func schema() async throws {
        let fixture = try await APIFixture.forSuite("catalog_files_api")
        try await fixture.run { api in
            let response = try await api.send(.get, "/v1/schemas/catalog-file.json")
            #expect(response.status == .ok && response.headers[.contentType]?.hasPrefix("application/schema+json") == true)
            let served = try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? NSDictionary
            let file = try JSONSerialization.jsonObject(with: CatalogFileSchema.data) as? NSDictionary
            #expect(served != nil && served == file)
        }
    }
}
