import CatalogAPI
import CatalogAPIConventions
import CatalogCore
import CatalogServer
import CatalogStore
import CatalogTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import PurchaseCore

/// The real application, as `iap-server serve` builds it, on the suite's own database: migrated by the owner,
/// served as the least-privileged service role.
struct TestArguments: ServerArguments {
    let hostname = "127.0.0.1"
    let port = 0
    let databaseURL: DatabaseURL
    let migrationDatabaseURL: DatabaseURL?
    var logLevel: Logger.Level = .critical
    var console: ConsoleSettings = .standard
    /// Rate limits out of the way but for the tests about them; a pool of 8 connections, as dozens of
    /// applications run at once against one test cluster. The wait for a connection is 30 s, not the service's
    /// 5: when the whole suite starts, hundreds of tests make their databases and servers at once on two cores,
    /// and a test racing a dozen requests through 8 connections was sometimes answered 503 after 5 s of that
    /// queue. What these tests check is what the racing requests are told, not the load the suite makes;
    /// the wait itself is tested by ProcessTests (a held pool answers 503 within its bound).
    var limits: ServiceLimits = Self.testLimits
    /// The limits above, for a test that changes one of them.
    static let testLimits: ServiceLimits = {
        var limits = ServiceLimits.standard
        limits.requestsPerSecondPerKey = 1_000_000
        limits.burstPerKey = 1_000_000
        limits.databaseConnections = 8
        limits.databaseWait = .seconds(30)
        return limits
    }()
    /// Apple's root, unless a test trusts the stand-in's test chain.
    var trustedRoots: TrustedRoots = .appleRootCAG3
    /// No receipt verification worker but in the tests of it (ReceiptVerificationTests).
    var receiptVerification: ReceiptVerificationSettings?
    /// The service's own settings: no loopback, so no delivery reaches a test's receiver unless a test allows it.
    var webhooks: WebhookSettings = {
        var settings = WebhookSettings.standard
        // Other suites' endpoints (the probes make some) are not delivered to: the webhook suites turn it on.
        settings.delivers = false
        return settings
    }()
}

/// A test's view of the API: requests as a client sends them, answers decoded as the document defines them.
struct APIFixture: Sendable {
    let url: DatabaseURL

    static func forSuite(_ suite: String) async throws -> APIFixture {
        APIFixture(url: try await TestDatabase.forSuite(suite))
    }

    /// Runs `body` against the application in-process, logging at `logLevel`; `.live` serves it on a port
    /// of the loopback interface (`api.client.port`), through its real channel pipeline.
    func run<Result: Sendable>(limits: ServiceLimits? = nil, logLevel: Logger.Level = .critical,
                               mode: TestingSetup = .router, roots: TrustedRoots? = nil,
                               console: ConsoleSettings = .standard, webhooks: WebhookSettings? = nil,
                               _ body: @Sendable (API) async throws -> Result) async throws -> Result
    {
        let service = try await TestDatabase.serviceURL(for: url)
        var arguments = TestArguments(databaseURL: service, migrationDatabaseURL: url, logLevel: logLevel)
        arguments.console = console
        if let limits { arguments.limits = limits }
        if let roots { arguments.trustedRoots = roots }
        if let webhooks { arguments.webhooks = webhooks }
        let app = try await buildApplication(arguments)
        return try await app.test(mode) { client in try await body(API(client: client)) }
    }

    /// A new key of `role`, limited to `apps` when given, made directly in the database like `create-key`.
    func key(_ role: KeyRole, apps: [String]? = nil, name: String? = nil) async throws -> String {
        try await TestKeys.make(role, apps: apps, name: name, in: url)
    }

    /// One key of each role, unlimited.
    func keys() async throws -> Keys {
        Keys(admin: try await key(.admin), developer: try await key(.developer), reviewer: try await key(.reviewer),
             auditor: try await key(.auditor))
    }

    struct Keys: Sendable {
        let admin: String
        let developer: String
        let reviewer: String
        let auditor: String
    }
}

/// Requests against the in-process application.
struct API: Sendable {
    let client: any TestClientProtocol

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            return try RFC3339DateTranscoder().decode(text)
        }
        return decoder
    }()

    /// Sends `body` (raw bytes, as a hostile client might) and answers the response.
    @discardableResult
    func send(_ method: HTTPRequest.Method, _ path: String, key: String? = nil, body: String? = nil,
              headers: HTTPFields = [:]) async throws -> TestResponse {
        var fields = headers
        if let key { fields[.authorization] = "Bearer \(key)" }
        if body != nil && fields[.contentType] == nil { fields[.contentType] = "application/json" }
        return try await client.execute(uri: path, method: method, headers: fields,
                                        body: body.map { ByteBuffer(string: $0) })
    }

    /// Sends a JSON object built from `json`.
    @discardableResult
    func send(_ method: HTTPRequest.Method, _ path: String, key: String? = nil, json: [String: any Sendable],
              headers: HTTPFields = [:]) async throws -> TestResponse {
        let data = try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys])
        return try await send(method, path, key: key, body: String(decoding: data, as: UTF8.self), headers: headers)
    }

    // MARK: The common steps of a test

    @discardableResult
    func createApp(_ bundleID: String, key: String, newsstand: Bool = false) async throws -> Components.Schemas.App {
        let response = try await send(.post, "/v1/apps", key: key,
                                      json: ["bundleId": bundleID, "name": "App \(bundleID)", "newsstand": newsstand])
        return try expect(response, .created, as: Components.Schemas.App.self)
    }

    @discardableResult
    func createGroup(_ bundleID: String, key: String, name: String = "Pass") async throws -> Components.Schemas.SubscriptionGroup {
        let response = try await send(.post, "/v1/apps/\(bundleID)/subscription-groups", key: key,
                                      json: ["referenceName": name])
        return try expect(response, .created, as: Components.Schemas.SubscriptionGroup.self)
    }

    /// A product complete for approval: a price for paid types, a localization in en-US, and for an
    /// auto-renewable subscription a group, `level` and a duration.
    @discardableResult
    func createProduct(_ bundleID: String, _ productID: String, type: PurchaseType, key: String,
                       groupID: String? = nil, level: Int = 1) async throws -> Components.Schemas.Product {
        var json: [String: any Sendable] = [
            "productId": productID, "referenceName": "Ref \(productID)", "type": type.rawValue,
            "localizations": [["locale": "en-US", "displayName": "Name \(productID.prefix(20))", "description": "Desc"]],
        ]
        if type.isPaid { json["price"] = ["currency": "USD", "amount": "0.99"] }
        if type == .autoRenewableSubscription {
            json["subscriptionGroupId"] = groupID
            json["level"] = level
            json["duration"] = "P1M"
        }
        let response = try await send(.post, "/v1/apps/\(bundleID)/products", key: key, json: json)
        return try expect(response, .created, as: Components.Schemas.Product.self)
    }

    /// Takes `action`; answers the response, whatever its status.
    @discardableResult
    func act(_ action: ReviewAction, _ bundleID: String, _ productID: String, key: String, reason: String? = nil,
             headers: HTTPFields = [:]) async throws -> TestResponse {
        var json: [String: any Sendable] = ["action": action.rawValue]
        if let reason { json["reason"] = reason }
        return try await send(.post, "/v1/apps/\(bundleID)/products/\(productID)/actions", key: key, json: json,
                              headers: headers)
    }

    /// Takes `action`, which must succeed, and answers the product after it.
    @discardableResult
    func move(_ action: ReviewAction, _ bundleID: String, _ productID: String, key: String,
              reason: String? = "reason") async throws -> Components.Schemas.Product {
        try expect(try await act(action, bundleID, productID, key: key, reason: reason), .ok,
                   as: Components.Schemas.Product.self)
    }

    func product(_ bundleID: String, _ productID: String, key: String) async throws -> Components.Schemas.Product {
        try expect(try await send(.get, "/v1/apps/\(bundleID)/products/\(productID)", key: key), .ok,
                   as: Components.Schemas.Product.self)
    }

    func history(_ bundleID: String, _ productID: String, key: String) async throws -> [Components.Schemas.HistoryEvent] {
        try expect(try await send(.get, "/v1/apps/\(bundleID)/products/\(productID)/history?limit=200", key: key), .ok,
                   as: Components.Schemas.HistoryPage.self).items
    }

    func identifiers(_ bundleID: String) async throws -> [String] {
        try expect(try await send(.get, "/v1/apps/\(bundleID)/product-identifiers"), .ok,
                   as: Components.Schemas.ProductIdentifiers.self).productIdentifiers
    }
}

/// A response that was not what the test expected, with its body for the failure message.
struct UnexpectedResponse: Error, CustomStringConvertible {
    let description: String
}

/// Decodes `response` as `type` after checking its status.
func expect<T: Decodable>(_ response: TestResponse, _ status: HTTPResponse.Status, as type: T.Type) throws -> T {
    guard response.status == status else {
        throw UnexpectedResponse(description: "expected \(status.code), got \(response.status.code): \(String(buffer: response.body))")
    }
    return try API.decoder.decode(T.self, from: Data(response.body.readableBytesView))
}

/// The problem details of a refused request, after checking its status, kind and media type.
func problem(_ response: TestResponse, _ status: HTTPResponse.Status, _ kind: String) throws -> Components.Schemas.Problem {
    guard response.status == status, response.headers[.contentType] == "application/problem+json" else {
        throw UnexpectedResponse(description: "expected a \(status.code) problem, got \(response.status.code) \(response.headers[.contentType] ?? ""): \(String(buffer: response.body))")
    }
    let problem = try API.decoder.decode(Components.Schemas.Problem.self, from: Data(response.body.readableBytesView))
    guard problem._type == "urn:problem:iap-catalog:\(kind)" else {
        throw UnexpectedResponse(description: "expected \(kind), got \(problem._type): \(problem.detail ?? "")")
    }
    return problem
}
