import Foundation
import PurchaseCore
import Testing

/// The status table applied to exchanges: one rule per code, and the hops between endpoints.
@Suite struct VerifyReceiptAnswerRuleTests {
    let rule = VerifyReceiptAnswerRule(bundleId: "com.example.rule")

    func answer(_ json: String, status: Int = 200) -> VerifyReceiptExchange {
        .answered(httpStatus: status, body: Data(json.utf8))
    }

    func step(_ exchange: VerifyReceiptExchange, from endpoint: VerifyReceiptEndpoint = .production,
              asked: Set<VerifyReceiptEndpoint>? = nil) -> VerifyReceiptStep {
        rule.step(after: exchange, from: endpoint, asked: asked ?? [endpoint])
    }

    @Test func productionIsAskedFirst() {
        #expect(VerifyReceiptAnswerRule.firstEndpoint == .production)
    }

    @Test func validReceiptOfTheAppIsVerified() throws {
        let json = #"""
            {"status": 0, "environment": "Production", "receipt": {"bundle_id": "com.example.rule",
             "in_app": [{"transaction_id": "1", "product_id": "a"}, {"transaction_id": "2", "product_id": "b"}]},
             "latest_receipt_info": [{"transaction_id": "2", "product_id": "b", "expires_date_ms": "2000"},
                                     {"transaction_id": "3", "product_id": "b"}]}
            """#
        guard case .finished(.verified(let receipt)) = step(answer(json)) else {
            Issue.record("not verified: \(step(answer(json)))")
            return
        }
        #expect(receipt.environment == .production)
        #expect(receipt.bundleId == "com.example.rule")
        #expect(receipt.transactions.map(\.transactionId) == ["1", "2", "3"], "each transaction once, first seen first")
        #expect(receipt.transactions[1].expiresDate == Date(timeIntervalSince1970: 2),
                "latest_receipt_info's facts are added to in_app's")
        #expect(receipt.problems.isEmpty)
    }

    @Test func theSandboxVerifiesSandboxReceipts() {
        let json = #"{"status": 0, "environment": "Sandbox", "receipt": {"bundle_id": "com.example.rule"}}"#
        guard case .finished(.verified(let receipt)) = step(answer(json), from: .sandbox) else {
            Issue.record("not verified")
            return
        }
        #expect(receipt.environment == .sandbox)
        #expect(receipt.transactions.isEmpty)
    }

    @Test func anExpiredIOS6SubscriptionReceiptIsStillVerified() {
        let json = #"{"status": 21006, "receipt": {"bundle_id": "com.example.rule"}}"#
        guard case .finished(.verified(let receipt)) = step(answer(json)) else {
            Issue.record("not verified")
            return
        }
        #expect(receipt.status == .subscriptionExpired)
    }

    @Test func anotherAppsReceiptIsInvalid() {
        #expect(step(answer(#"{"status": 0, "receipt": {"bundle_id": "com.example.other"}}"#))
            == .finished(.invalid(.otherApp(expected: "com.example.rule", found: "com.example.other"))))
        #expect(step(answer(#"{"status": 0}"#))
            == .finished(.invalid(.otherApp(expected: "com.example.rule", found: nil))))
        #expect(step(answer(#"{"status": 0, "receipt": {"bundle_id": "COM.EXAMPLE.RULE"}}"#))
            == .finished(.invalid(.otherApp(expected: "com.example.rule", found: "COM.EXAMPLE.RULE"))),
                "bundle ids compare exactly")
    }

    @Test func unreadableTransactionsAreNamedAsProblems() {
        let json = #"""
            {"status": 0, "environment": "Production", "receipt": {"bundle_id": "com.example.rule",
             "in_app": [{"product_id": "a"}, {"transaction_id": "9", "product_id": "a"}]}}
            """#
        guard case .finished(.verified(let receipt)) = step(answer(json)) else {
            Issue.record("not verified")
            return
        }
        #expect(receipt.transactions.map(\.transactionId) == ["9"])
        #expect(receipt.problems.count == 1)
    }

    @Test func sandboxReceiptAtProductionGoesToTheSandbox() {
        #expect(step(answer(#"{"status": 21007}"#)) == .ask(.sandbox))
    }

    @Test func productionReceiptAtTheSandboxGoesToProduction() {
        #expect(step(answer(#"{"status": 21008}"#), from: .sandbox) == .ask(.production))
    }

    @Test func endpointsThatPointAtEachOtherEndTheAttempt() {
        #expect(step(answer(#"{"status": 21008}"#), from: .sandbox, asked: [.production, .sandbox])
            == .finished(.retry(.environmentsDisagree)))
        #expect(step(answer(#"{"status": 21007}"#), from: .production, asked: [.sandbox, .production])
            == .finished(.retry(.environmentsDisagree)))
    }

    @Test(arguments: [21000, 21003, 21004, 21010])
    func refusalsAreInvalidWithTheirStatus(code: Int) {
        #expect(step(answer(#"{"status": \#(code)}"#)) == .finished(.invalid(.appleStatus(VerifyReceiptStatus(code)))))
    }

    @Test func malformedDataIsRetried() {
        #expect(step(answer(#"{"status": 21002}"#)) == .finished(.retry(.malformedReceiptData)))
    }

    @Test(arguments: [21005, 21009, 21100, 21199, 21001])
    func temporaryStatusesAreRetried(code: Int) {
        #expect(step(answer(#"{"status": \#(code)}"#)) == .finished(.retry(.appleStatus(VerifyReceiptStatus(code)))))
    }

    @Test func isRetryableMakesARefusalTemporary() {
        #expect(step(answer(#"{"status": 21003, "is-retryable": true}"#))
            == .finished(.retry(.appleStatus(.notAuthentic))))
        #expect(step(answer(#"{"status": 21003, "is-retryable": false}"#))
            == .finished(.invalid(.appleStatus(.notAuthentic))))
        #expect(step(answer(#"{"status": 21150, "is-retryable": false}"#))
            == .finished(.retry(.appleStatus(VerifyReceiptStatus(21150)))),
                "an internal error is retried whatever the flag says (docs/decisions.md)")
    }

    @Test(arguments: [500, 502, 503, 504, 404, 429])
    func httpErrorsAreRetried(status: Int) {
        #expect(step(answer("oops", status: status)) == .finished(.retry(.httpStatus(status))))
    }

    @Test func transportFailuresAreRetried() {
        #expect(step(.timedOut) == .finished(.retry(.timedOut)))
        #expect(step(.connectionFailed("refused")) == .finished(.retry(.connectionFailed("refused"))))
        #expect(step(.answerTooLarge(limit: 10)) == .finished(.retry(.answerTooLarge(limit: 10))))
        #expect(step(answer("<html>maintenance</html>")) == .finished(.retry(.unreadableAnswer)))
    }
}
