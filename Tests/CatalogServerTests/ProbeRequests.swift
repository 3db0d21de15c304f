import CatalogAPI
import CatalogCore
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing

/// A well-formed request for any operation of the document, so that a probe's answer is about what the
/// probe changes (the key, the role, one hostile value), not about a body the server could not read.
enum ProbeRequests {
    private static let counter = Atomic<Int>(0)

    /// A fresh number, for names that must be unique.
    static func unique() -> Int { counter.add(1, ordering: .relaxed).newValue }

    /// A valid body for `operationID` (JSON, a StoreKit file, which is JSON too, or a catalog file), or `nil` if the operation
    /// takes none. A new operation with a body fails here until it is given one.
    static func body(for operationID: String, action: ReviewAction = .approve) throws -> String? {
        let n = unique()
        let bodies: [String: String] = [
            "createApp": #"{"bundleId":"com.probe.new\#(n)","name":"New \#(n)"}"#,
            "updateApp": #"{"name":"Renamed \#(n)"}"#,
            "createSubscriptionGroup": #"{"referenceName":"Group \#(n)"}"#,
            "updateSubscriptionGroup": #"{"referenceName":"Group renamed \#(n)"}"#,
            "createProduct": #"{"productId":"new.\#(n)","referenceName":"New \#(n)","type":"CONSUMABLE"}"#,
            "updateProduct": #"{"referenceName":"Renamed \#(n)"}"#,
            "performAction": #"{"action":"\#(action.rawValue)","reason":"probe"}"#,
            "createKey": #"{"role":"auditor","name":"probe \#(n)"}"#,
            // A receipt for an account of its own: queued (the stand-in would verify it), never a rate limit.
            "submitPurchase": #"{"receipt":"UFJPQkU\#(n)","accountToken":"\#(UUID().uuidString.lowercased())"}"#,
            "putStoreSettings": #"{"sharedSecret":"probe\#(n)secret","environments":["Production","Sandbox"]}"#,
            "createAccountTokens": #"{"account":"probe-user-\#(n)"}"#,
            // Not signed data: refused as such (422), whoever sends it.
            "receiveAppStoreNotification": #"{"signedPayload":"probe.\#(n).payload"}"#,
            // A public address written as one: no name to resolve (the tests' servers deliver to nothing).
            "createWebhook": #"{"url":"https://93.184.216.34/probe/\#(n)"}"#,
            "redeliverWebhook": #"{"from":1}"#,
            // A StoreKit file of one consumable, minified: its strings are nested, so that a probe that changes
            // every string reaches ones the import checks.
            // A catalog file of one product (YAML).
            "planCatalogFile": "version: 1\nproducts:\n  - {productId: file.\(n), type: CONSUMABLE, referenceName: File \(n)}\n",
            "applyCatalogFile": "version: 1\nproducts:\n  - {productId: file.\(n), type: CONSUMABLE, referenceName: File \(n)}\n",
            "importStoreKit": #"{"identifier":"probe\#(n)","products":[{"displayPrice":"0.99","familyShareable":false,"internalID":"\#(n)","localizations":[{"description":"A probe","displayName":"Probe \#(n)","locale":"en_US"}],"productID":"file.\#(n)","referenceName":"File \#(n)","type":"Consumable"}],"version":{"major":4,"minor":0}}"#,
        ]
        return bodies[operationID]
    }

    /// Sends `operation` with its path filled from `values`, a valid body if it takes one, and `headers`.
    static func send(_ api: API, _ operation: ServedOperation, values: [String: String], headers: HTTPFields,
                     action: ReviewAction = .approve) async throws -> TestResponse {
        var body: String?
        var headers = headers
        if let mediaType = operation.bodyMediaType {
            let required: String = try #require(try self.body(for: operation.operationID, action: action),
                                                 "no probe body for \(operation.operationID): add one to ProbeRequests")
            body = required
            if headers[.contentType] == nil { headers[.contentType] = mediaType }
        }
        return try await api.send(operation.method, operation.path(values), body: body, headers: headers)
    }
}

/// One app with a subscription group and products, and keys of every role: what the probes aim at.
struct ProbeWorld: Sendable {
    let app: String
    let groupID: String
    let keys: APIFixture.Keys
    /// A client key of the world's app.
    let clientKey: String
    /// A spare key's id, for revocations.
    let spareKeyID: String
    /// A webhook endpoint's id (nothing is delivered to it: the tests' servers deliver only where a test says).
    let webhookID: String

    static func make(_ api: API, fixture: APIFixture, app: String) async throws -> ProbeWorld {
        let keys = try await fixture.keys()
        try await api.createApp(app, key: keys.admin)
        let group = try await api.createGroup(app, key: keys.admin)
        let spare = try expect(try await api.send(.post, "/v1/keys", key: keys.admin,
                                                  json: ["role": "auditor", "name": "spare", "apps": [app]]),
                               .created, as: Components.Schemas.CreatedKey.self)
        let client = try await fixture.key(.client, apps: [app])
        let webhook = try expect(try await api.send(.post, "/v1/webhooks", key: keys.admin,
                                                    json: ["url": "https://93.184.216.34/probe", "apps": [app]]),
                                 .created, as: Components.Schemas.CreatedWebhook.self)
        return ProbeWorld(app: app, groupID: group.id, keys: keys, clientKey: client, spareKeyID: spare.id,
                          webhookID: webhook.id)
    }

    /// Path values for one probe: a fresh product of its own, so that what one probe changes (a delete, an
    /// action) cannot decide another's answer.
    func values(_ api: API) async throws -> [String: String] {
        let productID = "probe.\(ProbeRequests.unique())"
        try await api.createProduct(app, productID, type: .consumable, key: keys.admin)
        return ["bundleId": app, "productId": productID, "groupId": groupID, "keyId": spareKeyID,
                "submissionId": UUID().uuidString.lowercased(), "webhookId": webhookID, "transactionId": "2000000\(ProbeRequests.unique())",
                "accountToken": UUID().uuidString.lowercased()]
    }

    func key(_ role: KeyRole) -> String {
        switch role {
        case .admin: keys.admin
        case .developer: keys.developer
        case .reviewer: keys.reviewer
        case .auditor: keys.auditor
        case .client: clientKey
        }
    }
}
