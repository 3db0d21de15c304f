import AppStoreStandIn
import CatalogAPI
import CatalogCore
import CatalogStore
import CatalogTestSupport
import Foundation
import NIOHTTP1
import PurchaseCore
import Testing

/// A real `iap-server serve` trusting the stand-in's root through `APPSTORE_ROOT_CERTIFICATES`, logging at trace
/// level: purchases verify, and an app's shared secret appears in no log line, answer or export.
@Suite("Purchases in a server process")
struct PurchaseSecretsTests {
    static let secret = "t0p5ecret-shared-secret-0123456789abcdef"

    @Test("APPSTORE_ROOT_CERTIFICATES is trusted; the shared secret is never logged (trace), answered or exported")
    func rootsAndSecrets() async throws {
        let url = try await TestDatabase.forSuite("purchase_secrets")
        let service = try await TestDatabase.serviceURL(for: url)
        let chain = try TestChain.generate()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("chain-\(UUID().uuidString)")
        try chain.write(to: directory)
        defer { try? FileManager.default.removeItem(at: directory) }
        let admin = try await TestKeys.make(.admin, in: url)
        let server = try await ServerProcess(
            databaseURL: service, migrationURL: url,
            environment: ["APPSTORE_ROOT_CERTIFICATES": directory.appendingPathComponent("root.pem").path],
            logLevel: "trace")
        let caller = ServiceCaller(server.baseURL)
        let app = "com.process.secrets"
        var answers: [String] = []
        func note(_ answer: Answer) -> Answer {
            answers.append(answer.body)
            return answer
        }
        #expect(note(try await caller.call(.POST, "/v1/apps", key: admin, json: #"{"bundleId":"\#(app)","name":"Secrets"}"#)).status == 201)
        let put = note(try await caller.call(.PUT, "/v1/apps/\(app)/store-settings", key: admin,
                                             json: #"{"sharedSecret":"\#(Self.secret)","environments":["Sandbox"]}"#))
        #expect(put.status == 200 && put.body.contains(#""sharedSecretSet":true"#))
        #expect(note(try await caller.call(.GET, "/v1/apps/\(app)/store-settings", key: admin)).status == 200)
        // A refused secret is not echoed either.
        #expect(note(try await caller.call(.PUT, "/v1/apps/\(app)/store-settings", key: admin,
                                           json: #"{"sharedSecret":"\#(Self.secret) with spaces"}"#)).status == 422)
        let client = try await TestKeys.make(.client, apps: [app], in: url)
        let jws = try StandInSigner(chain: chain).sign(AppStoreTransaction.standIn(
            bundleId: app, productId: "coins", type: .consumable))
        let purchase = note(try await caller.call(.POST, "/v1/apps/\(app)/purchases", key: client,
                                                  json: #"{"signedTransaction":"\#(jws)"}"#))
        #expect(purchase.status == 200 && purchase.body.contains(#""status":"verified""#))
        for accept in ["text/csv", "application/x-ndjson", "application/json"] {
            #expect(note(try await caller.call(.GET, "/v1/history?app=\(app)", key: admin,
                                               headers: [("Accept", accept)])).status == 200)
            #expect(note(try await caller.call(.GET, "/v1/apps/\(app)/transactions", key: admin,
                                               headers: [("Accept", accept)])).status == 200)
        }
        server.send(SIGTERM)
        #expect(try await server.waitForExit() == 0)
        #expect(server.log.contains("\"level\":\"trace\"") || server.log.contains("trace"), "no trace lines")
        for text in answers + [server.log] {
            #expect(!text.contains(Self.secret.prefix(12)), "the shared secret was logged or answered")
        }
        print("purchase secrets: \(server.log.split(separator: "\n").count) log lines at trace, \(answers.count) answers, no shared secret")
    }
}
