import CatalogAPI
import Foundation
import NIOHTTP1

/// The steps the process tests take through a server's API, each required to succeed.
extension ServiceCaller {
    func createApp(_ bundleID: String, key: String) async throws {
        try expectStatus(201, try await call(.POST, "/v1/apps", key: key,
                                             json: #"{"bundleId":"\#(bundleID)","name":"App \#(bundleID)"}"#))
    }

    /// A non-consumable complete for approval.
    func createProduct(_ bundleID: String, _ productID: String, key: String) async throws {
        try expectStatus(201, try await call(.POST, "/v1/apps/\(bundleID)/products", key: key, json: """
            {"productId":"\(productID)","referenceName":"Ref \(productID)","type":"NON_CONSUMABLE",
             "price":{"currency":"USD","amount":"0.99"},
             "localizations":[{"locale":"en-US","displayName":"Name \(productID)","description":"Desc"}]}
            """))
    }

    func act(_ action: String, _ bundleID: String, _ productID: String, key: String,
             timeout: Duration = .seconds(15)) async throws -> Answer {
        try await call(.POST, "/v1/apps/\(bundleID)/products/\(productID)/actions", key: key,
                       json: #"{"action":"\#(action)","reason":"process test"}"#, timeout: timeout)
    }

    func product(_ bundleID: String, _ productID: String, key: String) async throws -> Components.Schemas.Product {
        try decode(Components.Schemas.Product.self,
                   from: try await call(.GET, "/v1/apps/\(bundleID)/products/\(productID)", key: key))
    }

    /// Every event of one product, oldest first, through all pages.
    func history(_ bundleID: String, _ productID: String, key: String) async throws -> [Components.Schemas.HistoryEvent] {
        var events: [Components.Schemas.HistoryEvent] = []
        var cursor: String?
        repeat {
            let query = cursor.map { "&cursor=\($0)" } ?? ""
            let page = try decode(Components.Schemas.HistoryPage.self, from: try await call(
                .GET, "/v1/apps/\(bundleID)/products/\(productID)/history?limit=200\(query)", key: key))
            events += page.items
            cursor = page.nextCursor
        } while cursor != nil
        return events
    }

    func verifyHistory(key: String) async throws -> Components.Schemas.HistoryVerification {
        try decode(Components.Schemas.HistoryVerification.self, from: try await call(.GET, "/v1/history/verify", key: key))
    }
}

func expectStatus(_ status: Int, _ answer: Answer) throws {
    guard answer.status == status else {
        throw UnexpectedAnswer(description: "expected \(status), got \(answer.status): \(answer.body)")
    }
}
