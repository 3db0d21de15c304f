import CatalogCore
import CatalogTestSupport
import Foundation
import NIOHTTP1
import Testing

/// Account tokens from real `iap-server serve` processes on one database, logging at trace level: two processes
/// and a restarted one give one account the same tokens, and the account is in no log line or answer.
@Suite("Account tokens in server processes")
struct AccountTokenProcessTests {
    @Test("the same account, the same tokens from two processes and after a restart; never logged (trace) or answered")
    func twoProcessesAndARestart() async throws {
        let url = try await TestDatabase.forSuite("account_token_processes")
        let service = try await TestDatabase.serviceURL(for: url)
        let admin = try await TestKeys.make(.admin, in: url)
        let account = "carol.\(UUID().uuidString)@example.com"
        let app = "com.process.accounts"
        let body = #"{"account":"\#(account)"}"#
        var answers: [String] = []
        var logs: [String] = []

        let first = try await ServerProcess(databaseURL: service, migrationURL: url, logLevel: "trace")
        let second = try await ServerProcess(databaseURL: service, migrationURL: url, logLevel: "trace")
        #expect(try await ServiceCaller(first.baseURL).call(.POST, "/v1/apps", key: admin,
                                                            json: #"{"bundleId":"\#(app)","name":"Accounts"}"#).status == 201)
        for server in [first, second] {
            let answer = try await ServiceCaller(server.baseURL).call(.POST, "/v1/apps/\(app)/account-tokens", key: admin,
                                                                      json: body)
            #expect(answer.status == 200)
            answers.append(answer.body)
            // Refused too long: the refusal does not quote it either.
            let refused = try await ServiceCaller(server.baseURL).call(
                .POST, "/v1/apps/\(app)/account-tokens", key: admin,
                json: #"{"account":"\#(String(repeating: account, count: 20))"}"#)
            #expect(refused.status == 422 && !refused.body.contains(account))
        }
        for server in [first, second] {
            server.send(SIGTERM)
            #expect(try await server.waitForExit() == 0)
            logs.append(server.log)
        }
        let restarted = try await ServerProcess(databaseURL: service, migrationURL: url, logLevel: "trace")
        let again = try await ServiceCaller(restarted.baseURL).call(.POST, "/v1/apps/\(app)/account-tokens", key: admin,
                                                                    json: body)
        #expect(again.status == 200)
        answers.append(again.body)
        restarted.send(SIGTERM)
        #expect(try await restarted.waitForExit() == 0)
        logs.append(restarted.log)

        #expect(answers.count == 3 && Set(answers).count == 1, "\(answers)")
        #expect(answers[0].contains("applicationUsername") && answers[0].contains("appAccountToken"))
        #expect(logs.allSatisfy { $0.contains("account-tokens") }, "the logs saw the requests")
        for text in answers + logs {
            #expect(!text.contains(account) && !text.contains(String(account.prefix(14))), "the account was logged or answered")
        }
    }
}
