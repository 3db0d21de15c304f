import CatalogAPI
import CatalogCore
import CatalogTestSupport
import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import NIOCore
import StoreKitConfiguration
import Synchronization
import Testing

/// StoreKit configuration files over HTTP: import, export and the round trip of every real fixture, refusals
/// of invalid files, conflicts, dry runs, history, the private key, the body limit and a file of 10,000 products.
@Suite("StoreKit import and export over HTTP")
struct StoreKitAPITests {
    static func importPath(_ bundleID: String, _ query: String = "") -> String {
        "/v1/apps/\(bundleID)/import/storekit\(query)"
    }

    static func exportPath(_ bundleID: String, _ query: String = "") -> String {
        "/v1/apps/\(bundleID)/export/storekit\(query)"
    }

    static let skippedHeader = HTTPField.Name("X-Skipped-Products")!

    /// A StoreKit file is sent as bytes (openapi.yaml).
    static let file: HTTPFields = [.contentType: "application/octet-stream"]

    /// A bundle id of the app each fixture is imported into.
    static func bundleID(_ fixture: StoreKitFixture, _ test: String) -> String {
        let name = switch fixture {
        case .foodTruck: "foodtruck"
        case .backyardBirds: "birds"
        case .cisum: "cisum"
        case .joodle: "joodle"
        case .glagolitsa: "glagolitsa"
        case .leftPocket: "leftpocket"
        case .revenueCatSwiftExample: "rc10"
        case .revenueCatLegacyExample: "rc11"
        case .storeKitTesting: "testing12"
        case .purchaseTester: "tester"
        }
        return "com.storekit.\(test).\(name)"
    }

    /// Products per type and groups in each fixture.
    static let expected: [StoreKitFixture: (consumable: Int, nonConsumable: Int, autoRenewable: Int, nonRenewing: Int, groups: Int)] = [
        .cisum: (3, 3, 4, 3, 2), .glagolitsa: (1, 0, 0, 0, 0), .backyardBirds: (6, 0, 3, 0, 1),
        .foodTruck: (0, 1, 2, 0, 1), .leftPocket: (0, 1, 8, 0, 2), .joodle: (0, 2, 2, 0, 1),
        .revenueCatSwiftExample: (0, 1, 2, 0, 1), .revenueCatLegacyExample: (0, 1, 2, 0, 1), .storeKitTesting: (0, 0, 2, 0, 1),
        .purchaseTester: (1, 1, 9, 0, 4),
    ]

    static func text(_ fixture: StoreKitFixture) throws -> String {
        String(decoding: try fixture.data, as: UTF8.self)
    }

    @Test("each fixture imports, exports as it was, and round-trips", arguments: StoreKitFixture.allCases)
    func fixtureRoundTrip(_ fixture: StoreKitFixture) async throws {
        let database = try await APIFixture.forSuite("storekit_api")
        let keys = try await database.keys()
        try await database.run { api in
            let bundleID = Self.bundleID(fixture, "trip")
            try await api.createApp(bundleID, key: keys.admin)
            let original = try Self.text(fixture)
            let result = try expect(try await api.send(.post, Self.importPath(bundleID, "?fileName=\(fixture.rawValue)"),
                                                       key: keys.developer, body: original, headers: Self.file),
                                    .ok, as: Components.Schemas.StoreKitImport.self)
            let counts = try #require(Self.expected[fixture])
            let byType = result.summary.byType
            #expect(byType.consumable == counts.consumable && byType.nonConsumable == counts.nonConsumable)
            #expect(byType.autoRenewableSubscription == counts.autoRenewable && byType.nonRenewingSubscription == counts.nonRenewing)
            let total = counts.consumable + counts.nonConsumable + counts.autoRenewable + counts.nonRenewing
            #expect(!result.dryRun && result.summary.create == total && result.summary.products == total)
            #expect(result.summary.subscriptionGroupsCreated == counts.groups)

            // In the catalog: every product pending approval, every group.
            let listed = try expect(try await api.send(.get, "/v1/apps/\(bundleID)/products?limit=200", key: keys.auditor),
                                    .ok, as: Components.Schemas.ProductPage.self)
            #expect(listed.items.count == total && listed.items.allSatisfy { $0.state == .pendingDeveloperApproval })
            #expect(listed.items.map(\.localizations.count).reduce(0, +) == result.summary.localizations)
            let groups = try expect(try await api.send(.get, "/v1/apps/\(bundleID)/subscription-groups", key: keys.auditor),
                                    .ok, as: Components.Schemas.SubscriptionGroupList.self)
            #expect(groups.items.count == counts.groups)

            // The draft export is the file again, byte for byte (and so as JSON, ids and all).
            let exported = try await api.send(.get, Self.exportPath(bundleID, "?revision=draft"), key: keys.auditor)
            #expect(exported.status == .ok && exported.headers[.contentType] == "application/octet-stream")
            #expect(exported.headers[.contentDisposition] == "attachment; filename=\"\(bundleID).storekit\"")
            #expect(exported.headers[.contentLength] == String(exported.body.readableBytes))
            #expect(exported.headers[Self.skippedHeader] == nil)
            #expect(String(buffer: exported.body) == (try fixture.exportText))
            #expect(try StoreKitJSON(parsing: Array(exported.body.readableBytesView))
                .isEquivalent(to: StoreKitJSON(parsing: original)))

            // Nothing is on sale yet: the live export holds no product, and is still a file Xcode opens.
            let live = try await api.send(.get, Self.exportPath(bundleID), key: keys.developer)
            let configuration = try StoreKitConfiguration(data: Array(live.body.readableBytesView))
            #expect(configuration.products.isEmpty && configuration.subscriptionGroups.isEmpty)
        }
    }

    /// The backyard-birds file with six problems: a made-up type, a display name of 31 characters (twice), a
    /// duplicated productID, a renewal period that does not exist and a zero price.
    static func invalidFile() throws -> String {
        var file = try StoreKitJSON(parsing: try StoreKitFixture.backyardBirds.data)
        let subscriptions: [StoreKitJSONPath.Component] = [.key("subscriptionGroups"), .index(0), .key("subscriptions")]
        file = file.replacing([.key("products"), .index(0), .key("type")], with: "AutoRenewable")
        file = file.replacing([.key("products"), .index(1), .key("localizations"), .index(0), .key("displayName")],
                              with: .string(String(repeating: "n", count: 31)))
        file = file.replacing([.key("products"), .index(3), .key("productID")], with: "pellet.box")
        file = file.replacing(subscriptions + [.index(0), .key("recurringSubscriptionPeriod")], with: "P2W")
        file = file.replacing(subscriptions + [.index(1), .key("displayPrice")], with: "0")
        file = file.replacing(subscriptions + [.index(2), .key("localizations"), .index(0), .key("displayName")],
                              with: .string(String(repeating: "p", count: 31)))
        return XcodeJSONWriter.string(for: file)
    }

    @Test("an invalid file is refused whole, with every problem's path, and nothing is written")
    func invalidFileIsRefused() async throws {
        let database = try await APIFixture.forSuite("storekit_api")
        let keys = try await database.keys()
        try await database.run { api in
            let bundleID = "com.storekit.invalid"
            try await api.createApp(bundleID, key: keys.admin)
            for query in ["", "?dryRun=true"] {
                let refused = try problem(try await api.send(.post, Self.importPath(bundleID, query), key: keys.developer,
                                                             body: try Self.invalidFile(), headers: Self.file),
                                          .unprocessableContent, "validation-failed")
                let fields = Set((refused.errors ?? []).map(\.field))
                #expect(fields == [
                    "products[0].type", "products[1].localizations[0].displayName", "products[3].productID",
                    "subscriptionGroups[0].subscriptions[0].recurringSubscriptionPeriod",
                    "subscriptionGroups[0].subscriptions[1].displayPrice",
                    "subscriptionGroups[0].subscriptions[2].localizations[0].displayName",
                ])
                #expect(refused.detail?.contains(
                    "subscriptionGroups[0].subscriptions[2].localizations[0].displayName: 31 characters, at most 30") == true)
            }
            let products = try expect(try await api.send(.get, "/v1/apps/\(bundleID)/products", key: keys.admin),
                                      .ok, as: Components.Schemas.ProductPage.self)
            let groups = try expect(try await api.send(.get, "/v1/apps/\(bundleID)/subscription-groups", key: keys.admin),
                                    .ok, as: Components.Schemas.SubscriptionGroupList.self)
            #expect(products.items.isEmpty && groups.items.isEmpty)
            #expect(try await Self.events(database, bundleID, "kind::text FROM history_events") == ["app_created"])

            // Not JSON at all, another currency's spelling, a look-alike file: all refused.
            let notJSON = try problem(try await api.send(.post, Self.importPath(bundleID), key: keys.developer,
                                                         body: "{\"products\": [\n  {,", headers: Self.file), .badRequest, "bad-request")
            #expect(notJSON.detail?.contains("line 2") == true)
            _ = try problem(try await api.send(.post, Self.importPath(bundleID, "?currency=usd"), key: keys.developer,
                                               body: try Self.text(.glagolitsa), headers: Self.file), .unprocessableContent, "validation-failed")
            let lookAlike = #"{"products": [{"productID": "pro", "referenceName": "Pro", "type": "AutoRenewableSubscription"}], "version": {"major": 1, "minor": 0}}"#
            let refused = try problem(try await api.send(.post, Self.importPath(bundleID), key: keys.developer, body: lookAlike, headers: Self.file),
                                      .unprocessableContent, "validation-failed")
            #expect(refused.errors?.contains { $0.field == "products[0].type" } == true)
            #expect(refused.errors?.contains { $0.field == "subscriptionGroups" } == true)
        }
    }

    @Test("a second import: unchanged products are left alone, changed ones are conflicts and nothing is written")
    func conflicts() async throws {
        let database = try await APIFixture.forSuite("storekit_api")
        let keys = try await database.keys()
        try await database.run { api in
            let bundleID = "com.storekit.conflicts"
            try await api.createApp(bundleID, key: keys.admin)
            let file = try Self.text(.backyardBirds)
            _ = try expect(try await api.send(.post, Self.importPath(bundleID), key: keys.developer, body: file, headers: Self.file),
                           .ok, as: Components.Schemas.StoreKitImport.self)
            // The same file again changes nothing.
            let again = try expect(try await api.send(.post, Self.importPath(bundleID), key: keys.developer, body: file, headers: Self.file),
                                   .ok, as: Components.Schemas.StoreKitImport.self)
            #expect(again.summary.unchanged == 9 && again.summary.create == 0 && again.summary.subscriptionGroupsExisting == 1)

            // Edited in the catalog, deleted (its id stays reserved): conflicts, and the import is refused.
            _ = try expect(try await api.send(.patch, "/v1/apps/\(bundleID)/products/pellet.box", key: keys.developer,
                                              json: ["price": ["currency": "USD", "amount": "4.49"]]),
                           .ok, as: Components.Schemas.Product.self)
            let deleted = try await api.send(.delete, "/v1/apps/\(bundleID)/products/nectar.cup", key: keys.developer)
            #expect(deleted.status == .noContent)
            let eventsBefore = try await Self.events(database, bundleID, "kind::text FROM history_events").count
            let refused = try problem(try await api.send(.post, Self.importPath(bundleID), key: keys.developer, body: file, headers: Self.file),
                                      .conflict, "conflict")
            #expect(refused.conflicts?.map(\.productId).sorted() == ["nectar.cup", "pellet.box"])
            #expect(refused.conflicts?.first { $0.productId == "pellet.box" }?.path == "products[1]")
            #expect(try await Self.events(database, bundleID, "kind::text FROM history_events").count == eventsBefore)
            #expect(try await api.product(bundleID, "pellet.box", key: keys.admin).price?.amount == "4.49")

            // The dry run shows the plan, conflicts included.
            let plan = try expect(try await api.send(.post, Self.importPath(bundleID, "?dryRun=true"), key: keys.developer,
                                                     body: file, headers: Self.file), .ok, as: Components.Schemas.StoreKitImport.self)
            let outcomes = Dictionary(uniqueKeysWithValues: plan.products.map { ($0.productId, $0.outcome) })
            #expect(plan.dryRun && outcomes["pellet.box"] == .conflict && outcomes["nectar.cup"] == .conflict)
            #expect(outcomes["pellet.single"] == .unchanged && plan.summary.conflict == 2 && plan.summary.unchanged == 7)
            #expect(plan.products.first { $0.productId == "pellet.box" }?.reason == "already in the catalog with another price")
        }
    }

    /// A column of the app's history events, read from the table (`selection` is `column FROM history_events`
    /// with an optional `WHERE`), oldest first.
    static func events(_ fixture: APIFixture, _ bundleID: String, _ selection: String) async throws -> [String] {
        let condition = selection.contains(" WHERE ") ? " AND" : " WHERE"
        return try await TestDatabase.withDatabase(fixture.url) { database in
            try await StoreValues.strings("SELECT \(selection)\(condition) app = '\(bundleID)' ORDER BY sequence", in: database)
        }
    }

    @Test("a dry run answers the plan and writes nothing")
    func dryRun() async throws {
        let database = try await APIFixture.forSuite("storekit_api")
        let keys = try await database.keys()
        try await database.run { api in
            let bundleID = "com.storekit.dryrun"
            try await api.createApp(bundleID, key: keys.admin)
            let plan = try expect(try await api.send(.post, Self.importPath(bundleID, "?dryRun=true&currency=EUR"),
                                                     key: keys.developer, body: try Self.text(.foodTruck), headers: Self.file),
                                  .ok, as: Components.Schemas.StoreKitImport.self)
            #expect(plan.dryRun && plan.currency == "EUR" && plan.summary.create == 3 && plan.summary.subscriptionGroupsCreated == 1)
            #expect(plan.products.map(\.outcome) == [.create, .create, .create])
            #expect(plan.warnings.map(\.field) == ["subscriptionGroups[0].subscriptions[1].groupNumber"])
            #expect(plan.products.map(\.level) == [nil, 1, 2])
            #expect(try await Self.events(database, bundleID, "kind::text FROM history_events") == ["app_created"])
            let products = try expect(try await api.send(.get, "/v1/apps/\(bundleID)/products", key: keys.admin),
                                      .ok, as: Components.Schemas.ProductPage.self)
            #expect(products.items.isEmpty)
            // The draft export of the untouched app is an empty new file.
            let exported = try await api.send(.get, Self.exportPath(bundleID, "?revision=draft"), key: keys.admin)
            let configuration = try StoreKitConfiguration(data: Array(exported.body.readableBytesView))
            #expect(configuration.products.isEmpty && configuration.subscriptionGroups.isEmpty)
        }
    }

    @Test("every imported product and group gets a history event naming the file; prices in the currency given")
    func history() async throws {
        let database = try await APIFixture.forSuite("storekit_api")
        let developer = try await database.key(.developer, name: "Importer")
        let admin = try await database.key(.admin)
        try await database.run { api in
            let bundleID = "com.storekit.history"
            try await api.createApp(bundleID, key: admin)
            _ = try expect(try await api.send(.post, Self.importPath(bundleID, "?fileName=Products.storekit&currency=EUR"),
                                              key: developer, body: try Self.text(.foodTruck), headers: Self.file),
                           .ok, as: Components.Schemas.StoreKitImport.self)
            let events = try await api.history(bundleID, "socialfeedplus.yearly", key: admin)
            let created = try #require(events.first)
            #expect(events.count == 1 && created.kind == .created && created.toState == .pendingDeveloperApproval)
            #expect(created.reason == "imported from StoreKit file \"Products.storekit\"" && created.actor.name == "Importer")
            #expect(created.changes.map(\.field).contains("localizations"))
            // (Read from the table: listings hide events newer than the oldest transaction still running in the
            // cluster, and other suites' imports run alongside.)
            #expect(try await Self.events(database, bundleID, "reason FROM history_events WHERE kind = 'group_created'")
                == ["imported from StoreKit file \"Products.storekit\""])
            let yearly = try await api.product(bundleID, "socialfeedplus.yearly", key: admin)
            #expect(yearly.price?.currency == "EUR" && yearly.price?.amount == "49.99" && yearly.level == 2 && yearly.duration?.rawValue == "P1Y")
            #expect(yearly.introductoryOffer?.paymentMode.rawValue == "PAY_UP_FRONT" && yearly.introductoryOffer?.amount == "8.99")
            #expect(yearly.localizations.map(\.locale) == ["en-US", "ar"])
            let verified = try expect(try await api.send(.get, "/v1/history/verify?app=\(bundleID)", key: admin),
                                      .ok, as: Components.Schemas.HistoryVerification.self)
            #expect(verified.verified)
        }
    }

    @Test("the live export holds what is on sale; a free subscription is skipped and named in a header")
    func liveExportAndSkipped() async throws {
        let database = try await APIFixture.forSuite("storekit_api")
        let keys = try await database.keys()
        try await database.run { api in
            let bundleID = "com.storekit.live"
            try await api.createApp(bundleID, key: keys.admin, newsstand: true)
            _ = try expect(try await api.send(.post, Self.importPath(bundleID), key: keys.developer,
                                              body: try Self.text(.backyardBirds), headers: Self.file),
                           .ok, as: Components.Schemas.StoreKitImport.self)
            try await api.createProduct(bundleID, "news.free", type: .freeSubscription, key: keys.developer)
            for id in ["pellet.single", "pass.premium", "news.free"] {
                for action in [ReviewAction.approve, .submit, .startReview, .accept] {
                    try await api.move(action, bundleID, id, key: keys.admin)
                }
            }
            let live = try await api.send(.get, Self.exportPath(bundleID), key: keys.auditor)
            #expect(live.status == .ok && live.headers[Self.skippedHeader] == "news.free=free-subscription")
            let file = try StoreKitConfiguration(data: Array(live.body.readableBytesView))
            #expect(file.products.map(\.productID) == ["pellet.single"])
            #expect(file.subscriptionGroups.map(\.name) == ["Backyard Birds Pass"])
            #expect(file.subscriptionGroups.first?.subscriptions.map(\.productID) == ["pass.premium"])
            let draft = try await api.send(.get, Self.exportPath(bundleID, "?revision=draft"), key: keys.auditor)
            #expect(draft.headers[Self.skippedHeader] == "news.free=free-subscription")
            #expect(try StoreKitConfiguration(data: Array(draft.body.readableBytesView)).products.count == 6)
        }
    }

    @Test("roles: admin and developer import; auditors export but do not import; reviewers do neither; other apps are 404")
    func roles() async throws {
        let database = try await APIFixture.forSuite("storekit_api")
        let keys = try await database.keys()
        let elsewhere = try await database.key(.developer, apps: ["com.storekit.elsewhere"])
        try await database.run { api in
            let bundleID = "com.storekit.roles"
            try await api.createApp(bundleID, key: keys.admin)
            let file = try Self.text(.glagolitsa)
            _ = try problem(try await api.send(.post, Self.importPath(bundleID), key: keys.auditor, body: file, headers: Self.file), .forbidden, "forbidden")
            _ = try problem(try await api.send(.post, Self.importPath(bundleID), key: keys.reviewer, body: file, headers: Self.file), .forbidden, "forbidden")
            _ = try problem(try await api.send(.get, Self.exportPath(bundleID), key: keys.reviewer), .forbidden, "forbidden")
            _ = try problem(try await api.send(.post, Self.importPath(bundleID), key: elsewhere, body: file, headers: Self.file), .notFound, "not-found")
            _ = try problem(try await api.send(.get, Self.exportPath(bundleID), key: elsewhere), .notFound, "not-found")
            _ = try problem(try await api.send(.post, Self.importPath(bundleID), body: file, headers: Self.file), .unauthorized, "unauthorized")
            _ = try expect(try await api.send(.post, Self.importPath(bundleID, "?dryRun=true"), key: keys.admin, body: file, headers: Self.file),
                           .ok, as: Components.Schemas.StoreKitImport.self)
            #expect(try await api.send(.get, Self.exportPath(bundleID), key: keys.auditor).status == .ok)
        }
    }

    @Test("the import takes files up to 32 MiB as application/octet-stream; a larger one is 413, other routes keep 1 MiB")
    func bodyLimit() async throws {
        let database = try await APIFixture.forSuite("storekit_api")
        let keys = try await database.keys()
        try await database.run { api in
            let bundleID = "com.storekit.limit"
            try await api.createApp(bundleID, key: keys.admin)
            // Two MiB of whitespace inside a valid file: over the general limit, well under the import's.
            let original = try Self.text(.glagolitsa)
            let padded = original.replacingOccurrences(of: "\"products\" :", with: String(repeating: " ", count: 2 << 20) + "\"products\" :")
            _ = try expect(try await api.send(.post, Self.importPath(bundleID, "?dryRun=true"), key: keys.developer, body: padded, headers: Self.file),
                           .ok, as: Components.Schemas.StoreKitImport.self)
            let huge = String(repeating: " ", count: (32 << 20) + 1)
            let refused = try problem(try await api.send(.post, Self.importPath(bundleID), key: keys.developer, body: huge, headers: Self.file),
                                      .contentTooLarge, "payload-too-large")
            #expect(refused.detail == "at most 33554432 bytes")
            let general = try problem(try await api.send(.post, "/v1/apps/\(bundleID)/products", key: keys.developer, body: padded),
                                      .contentTooLarge, "payload-too-large")
            #expect(general.detail == "at most 1048576 bytes")
            // A file sent as a JSON document of the API is refused with the media type to use; so is a file
            // sent to an operation that takes JSON, whatever its size.
            let asJSON = try problem(try await api.send(.post, Self.importPath(bundleID, "?dryRun=true"), key: keys.developer,
                                                        body: try Self.text(.foodTruck)),
                                     .unsupportedMediaType, "unsupported-media-type")
            #expect(asJSON.title == "Send the body as application/octet-stream")
            let fileElsewhere = try problem(try await api.send(.post, "/v1/apps/\(bundleID)/products", key: keys.developer,
                                                               body: padded, headers: Self.file),
                                            .unsupportedMediaType, "unsupported-media-type")
            #expect(fileElsewhere.title == "Send the body as application/json")
        }
    }

    @Test("a file's private key is never logged nor quoted in an error; the export gives it back")
    func privateKey() async throws {
        LogCapture.install()
        let secret = "MIGTAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBHkwdwIBAQQg" + UUID().uuidString.replacingOccurrences(of: "-", with: "")
        var file = try StoreKitJSON(parsing: try StoreKitFixture.leftPocket.data)
        file = file.replacing([.key("subscriptionOffersKeyPair")], with: ["id": "5509FCF1", "privateKey": .string(secret)])
        let valid = XcodeJSONWriter.string(for: file)
        let invalid = XcodeJSONWriter.string(for: file.replacing([.key("products"), .index(0), .key("type")], with: "Bogus"))
        let database = try await APIFixture.forSuite("storekit_api")
        let keys = try await database.keys()
        try await database.run(logLevel: .trace) { api in
            let bundleID = "com.storekit.secret"
            try await api.createApp(bundleID, key: keys.admin)
            for body in [invalid, String(valid.dropLast(40)), valid.replacingOccurrences(of: "\"lp_699_1m\"", with: "\"lp 699\"")] {
                let refused = try await api.send(.post, Self.importPath(bundleID, "?fileName=Secret.storekit"),
                                                 key: keys.developer, body: body, headers: Self.file)
                #expect((400..<500).contains(refused.status.code) && !String(buffer: refused.body).contains(secret))
            }
            let imported = try await api.send(.post, Self.importPath(bundleID, "?fileName=Secret.storekit"),
                                              key: keys.developer, body: valid, headers: Self.file)
            #expect(imported.status == .ok && !String(buffer: imported.body).contains(secret))
            let exported = try await api.send(.get, Self.exportPath(bundleID, "?revision=draft"), key: keys.developer)
            #expect(String(buffer: exported.body) == valid)
        }
        let logged = LogCapture.text
        #expect(logged.contains("StoreKit file imported"), "the capture saw the import's log line")
        #expect(!logged.contains(secret) && !logged.contains(String(secret.suffix(32))))
    }

    @Test("a file of 10,000 products imports in seconds, and exports back")
    func tenThousandProducts() async throws {
        let file = Self.largeFile(products: 10_000)
        let database = try await APIFixture.forSuite("storekit_api_large")
        let keys = try await database.keys()
        try await database.run { api in
            let bundleID = "com.storekit.large"
            try await api.createApp(bundleID, key: keys.admin)
            let clock = ContinuousClock()
            var response: TestResponse?
            let elapsed = try await clock.measure {
                response = try await api.send(.post, Self.importPath(bundleID, "?fileName=Large.storekit"),
                                              key: keys.developer, body: file, headers: Self.file)
            }
            let result = try expect(try #require(response), .ok, as: Components.Schemas.StoreKitImport.self)
            print("StoreKit import of \(file.utf8.count) bytes, \(result.summary.create) products: \(elapsed)")
            #expect(result.summary.create == 10_000 && result.summary.subscriptionGroupsCreated == 20)
            // A debug build, in-process, beside every other suite: a bound against minutes, not the figure. The
            // release figure (seconds) is measured by scripts/time-storekit-import (docs/storekit.md).
            #expect(elapsed < .seconds(120))
            var exported: TestResponse?
            let exportTime = try await clock.measure {
                exported = try await api.send(.get, Self.exportPath(bundleID, "?revision=draft"), key: keys.developer)
            }
            print("StoreKit export of 10,000 products: \(exportTime)")
            #expect(String(buffer: try #require(exported).body) == file)
            // The app is full: one more product is refused, with the limit named.
            let refused = try problem(try await api.send(.post, Self.importPath(bundleID), key: keys.developer,
                                                         body: try Self.text(.glagolitsa), headers: Self.file),
                                      .unprocessableContent, "validation-failed")
            #expect(refused.errors?.first?.field == "$")
        }
    }

    /// A file of `products` products in Xcode's layout: a quarter each of consumables, non-consumables,
    /// non-renewing subscriptions and auto-renewable subscriptions (in 20 groups), two localizations each.
    static func largeFile(products: Int) -> String {
        let quarter = products / 4
        func localizations(_ name: String) -> StoreKitJSON {
            [["description": "A product for tests", "displayName": .string(name), "locale": "en_US"],
             ["description": "Un produit pour les tests", "displayName": .string(name), "locale": "fr"]]
        }
        func product(_ index: Int, _ type: String) -> StoreKitJSON {
            ["displayPrice": .string("\(index % 50).99"), "familyShareable": false,
             "internalID": .string(String(format: "%08X", index)), "localizations": localizations("Product \(index)"),
             "productID": .string("product.\(index)"), "referenceName": .string("Product \(index)"), "type": .string(type)]
        }
        var groups: [StoreKitJSON] = []
        let perGroup = quarter / 20
        for group in 0..<20 {
            let id = String(format: "%08X", 0x7000_0000 + group)
            var subscriptions: [StoreKitJSON] = []
            for member in 0..<perGroup {
                let index = 3 * quarter + group * perGroup + member
                guard case .object(var object) = product(index, "RecurringSubscription") else { continue }
                object["groupNumber"] = .integer(member + 1)
                object["recurringSubscriptionPeriod"] = "P1M"
                object["subscriptionGroupID"] = .string(id)
                object["introductoryOffer"] = .null
                object["adHocOffers"] = []
                object["codeOffers"] = []
                subscriptions.append(.object(object))
            }
            groups.append(["id": .string(id), "localizations": [], "name": .string("Group \(group)"),
                           "subscriptions": .array(subscriptions)])
        }
        let file: StoreKitJSON = [
            "identifier": "0BADCAFE",
            "nonRenewingSubscriptions": .array((2 * quarter..<3 * quarter).map { product($0, "NonRenewingSubscription") }),
            "products": .array((0..<quarter).map { product($0, "Consumable") }
                + (quarter..<2 * quarter).map { product($0, "NonConsumable") }),
            "settings": [:],
            "subscriptionGroups": .array(groups),
            "version": ["major": 3, "minor": 0],
        ]
        return XcodeJSONWriter.string(for: file)
    }
}

/// Every log line of the test process from the moment it is installed, for checking what was logged; errors
/// are printed to standard error as well.
enum LogCapture {
    private static let lines = Mutex<[String]>([])
    private static let installed: Void = {
        LoggingSystem.bootstrap { label in Handler(label: label) }
    }()

    static func install() { installed }

    static var text: String { lines.withLock { $0.joined(separator: "\n") } }

    struct Handler: LogHandler {
        let label: String
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let all = metadata.merging(event.metadata ?? [:]) { $1 }
            let line = "\(label) \(event.level) \(event.message) \(all.map { "\($0)=\($1)" }.sorted().joined(separator: " "))"
            LogCapture.lines.withLock { $0.append(line) }
            if event.level >= .error { FileHandle.standardError.write(Data((line + "\n").utf8)) }
        }
    }
}
