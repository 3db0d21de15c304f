import Foundation
import PurchaseCore
import Testing

/// verifyReceipt's JSON as Apple writes it: numbers as strings, fields that come and go.
@Suite struct VerifyReceiptResponseTests {
    /// An answer shaped like Apple's documentation and real answers (strings for numbers and flags).
    static let appleAnswer = """
        {
          "status": 0,
          "environment": "Sandbox",
          "receipt": {
            "receipt_type": "ProductionSandbox",
            "adam_id": 0,
            "app_item_id": 0,
            "bundle_id": "com.example.receipts",
            "application_version": "14",
            "download_id": 0,
            "receipt_creation_date_ms": "1566378403000",
            "original_application_version": "1.0",
            "in_app": [
              {
                "quantity": "2",
                "product_id": "coins.100",
                "transaction_id": "1000000559740927",
                "original_transaction_id": "1000000559740927",
                "purchase_date": "2019-08-21 09:06:43 Etc/GMT",
                "purchase_date_ms": "1566378403000",
                "is_trial_period": "false",
                "in_app_ownership_type": "PURCHASED",
                "app_account_token": "4E3F4F5A-6B7C-4D8E-9F00-112233445566"
              },
              {
                "quantity": "1",
                "product_id": "pro.monthly",
                "transaction_id": "1000000559740928",
                "original_transaction_id": "1000000557452125",
                "purchase_date_ms": "1566378403000",
                "expires_date_ms": "1566378703000",
                "web_order_line_item_id": "1000000046388850",
                "is_trial_period": "true",
                "is_in_intro_offer_period": "false"
              }
            ]
          },
          "latest_receipt_info": [
            {
              "quantity": "1",
              "product_id": "pro.monthly",
              "transaction_id": "1000000559740928",
              "original_transaction_id": "1000000557452125",
              "purchase_date_ms": "1566378403000",
              "expires_date_ms": "1566378703000",
              "cancellation_date_ms": "1566378600000",
              "cancellation_reason": "0",
              "subscription_group_identifier": "20537620"
            },
            {
              "quantity": "1",
              "product_id": "pro.monthly",
              "transaction_id": "1000000559740999",
              "original_transaction_id": "1000000557452125",
              "purchase_date_ms": 1566378703000,
              "expires_date_ms": "1566379003000"
            },
            { "product_id": "no.transaction.id" }
          ],
          "latest_receipt": "TUlJVGdRWUpLb1pJaHZjTkFRY0NvSUlUY2pDQ0UyNENBUUV4Q3pBSkJnVXJEZ01DR2dVQU1JSURJZ1lKS29aSWh2Y05BUWNCb0lJREV3U0NBdzh4Z2dNTE1Bb0NBUWdDQVFFRUFoWUFNQW9DQVFzQ0FRRUVBZ0lBTUFzQ0FRSUNBUUVFQXd3Qk1UQUxBZ0VEQWdFQkJBTU1BVEV3Q3dJQkN3SUJBUVFEQWdFQU1Bc0NBUTRDQVFFRUF3SUJCekFMQWdFUEFnRUJCQU1DQVFBd0N3SUJFQUlCQVFRREFnRUFNQXNDQVJrQ0FRRUVBd0lCQXpBTUFnRUtBZ0VCQkFRV0FqUXJNQXdDQVE0Q0FRRUVCQUlDQUk0d0RRSUJEUUlCQVFRRkFnTUIvUGd3RFFJQkV3SUJBUVFGREFNeExqQXdEZ0lCQ1FJQkFRUUdBZ1JRTWpVek1Ca0NBUUlDQVFFRUVRd1BZMjl0TG1OaGJXVnlZUzVoY0hBd0dBSUJCQUlCQWdRUVNJ",
          "pending_renewal_info": [
            {
              "auto_renew_product_id": "pro.monthly",
              "original_transaction_id": "1000000557452125",
              "product_id": "pro.monthly",
              "auto_renew_status": "1",
              "is_in_billing_retry_period": "0"
            }
          ]
        }
        """

    @Test func readsApplesAnswer() throws {
        let response = try VerifyReceiptResponse.decode(Data(Self.appleAnswer.utf8))
        #expect(response.status == .valid)
        #expect(response.environment == "Sandbox")
        #expect(response.receipt?.bundleId == "com.example.receipts")
        #expect(response.receipt?.appItemId == "0")
        #expect(response.receipt?.inApp.count == 2)
        let coins = try #require(response.receipt?.inApp.first)
        #expect(coins.quantity == 2)
        #expect(coins.purchaseDate == Date(timeIntervalSince1970: 1_566_378_403))
        #expect(coins.isTrialPeriod == false)
        #expect(coins.inAppOwnershipType == "PURCHASED")
        #expect(coins.appAccountToken == "4E3F4F5A-6B7C-4D8E-9F00-112233445566")
        #expect(response.latestReceiptInfo?.count == 2)
        #expect(response.latestReceiptInfo?[1].purchaseDate == Date(timeIntervalSince1970: 1_566_378_703),
                "a number where Apple usually writes a string is read too")
        #expect(response.skippedTransactions == 1, "the entry without transaction_id is skipped and counted")
        #expect(response.pendingRenewalInfo?.first?.autoRenewStatus == true)
        #expect(response.pendingRenewalInfo?.first?.isInBillingRetryPeriod == false)
        #expect(response.latestReceipt?.isEmpty == false)
    }

    @Test func anErrorAnswerNeedsOnlyItsStatus() throws {
        let response = try VerifyReceiptResponse.decode(Data(#"{"status": 21007}"#.utf8))
        #expect(response.status.code == 21007)
        #expect(response.receipt == nil)
        #expect(response.isRetryable == nil)
    }

    @Test(arguments: [#"{"status": 21100, "is-retryable": true}"#, #"{"status": 21100, "is-retryable": 1}"#,
                      #"{"status": "21100", "is-retryable": "true"}"#])
    func retryableFlagInEveryShape(json: String) throws {
        let response = try VerifyReceiptResponse.decode(Data(json.utf8))
        #expect(response.status.code == 21100)
        #expect(response.isRetryable == true)
    }

    @Test(arguments: ["", "<html>busy</html>", "[]", #"{"environment": "Sandbox"}"#, #"{"status": "ok"}"#,
                      #"{"status": 1.5}"#])
    func anAnswerWithoutAnIntegerStatusIsUnreadable(body: String) {
        #expect(throws: (any Error).self) { try VerifyReceiptResponse.decode(Data(body.utf8)) }
    }

    @Test("numbers and flags read alike in every shape Apple has written them", arguments: [
        (#""quantity": 3, "is_trial_period": true"#, 3, true),
        (#""quantity": "3", "is_trial_period": "true""#, 3, true),
        (#""quantity": " 3 ", "is_trial_period": "TRUE""#, 3, true),
        (#""quantity": 3.0, "is_trial_period": 1"#, 3, true),
        (#""quantity": "2", "is_trial_period": "1""#, 2, true),
        (#""quantity": 2, "is_trial_period": false"#, 2, false),
        (#""quantity": "2", "is_trial_period": "false""#, 2, false),
        (#""quantity": "2", "is_trial_period": 0"#, 2, false),
        (#""quantity": "2", "is_trial_period": "0""#, 2, false),
    ])
    func lenientShapes(fields: String, quantity: Int, trial: Bool) throws {
        let json = #"{"status": "0", "receipt": {"in_app": [{"transaction_id": "1", "product_id": "p", "purchase_date_ms": "1500", "# + fields + "}]}}"
        let response = try VerifyReceiptResponse.decode(Data(json.utf8))
        #expect(response.status.code == 0)
        let transaction = try #require(response.receipt?.inApp.first)
        #expect(transaction.quantity == quantity)
        #expect(transaction.isTrialPeriod == trial)
        #expect(transaction.purchaseDate == Date(timeIntervalSince1970: 1.5))
    }

    @Test func oddFieldsReadAsAbsent() throws {
        let json = #"""
            {"status": 0, "receipt": {"bundle_id": "b", "in_app": [
              {"transaction_id": 12, "product_id": "p", "quantity": {"x": 1}, "purchase_date_ms": "soon",
               "is_trial_period": "maybe"}]}}
            """#
        let transaction = try #require(try VerifyReceiptResponse.decode(Data(json.utf8)).receipt?.inApp.first)
        #expect(transaction.transactionId == "12")
        #expect(transaction.originalTransactionId == "12", "the original is the transaction itself when absent")
        #expect(transaction.quantity == 1)
        #expect(transaction.purchaseDate == nil)
        #expect(transaction.isTrialPeriod == nil)
    }

    @Test func writesNumbersAsStringsAsAppleDoes() throws {
        let transaction = ReceiptTransaction(transactionId: "7", productId: "p", quantity: 3,
                                             purchaseDate: Date(timeIntervalSince1970: 1.5), isTrialPeriod: false)
        let response = VerifyReceiptResponse(status: .valid, environment: "Production",
                                             receipt: .init(bundleId: "b", inApp: [transaction]))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(response), as: UTF8.self)
        #expect(json.contains(#""quantity":"3""#))
        #expect(json.contains(#""purchase_date_ms":"1500""#))
        #expect(json.contains(#""is_trial_period":"false""#))
        #expect(json.contains(#""status":0"#))
        #expect(try VerifyReceiptResponse.decode(Data(json.utf8)) == response)
    }

    @Test func theRequestUsesApplesNames() throws {
        let request = VerifyReceiptRequest(receiptData: ReceiptData(base64: "QUJD"), password: AppStoreSharedSecret("s3cr3t"),
                                           excludeOldTransactions: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(request), as: UTF8.self)
        #expect(json == #"{"exclude-old-transactions":true,"password":"s3cr3t","receipt-data":"QUJD"}"#)
        #expect(try JSONDecoder().decode(VerifyReceiptRequest.self, from: Data(json.utf8)) == request)
    }

    @Test func secretsAndReceiptsNeverPrint() {
        let request = VerifyReceiptRequest(receiptData: ReceiptData(base64: "UkVDRUlQVA=="),
                                           password: AppStoreSharedSecret("s3cr3t-value"))
        for text in [String(describing: request), String(reflecting: request), "\(request.password!)",
                     String(reflecting: request.password!), String(reflecting: request.receiptData),
                     "\(request.receiptData)", dumped(request)] {
            #expect(!text.contains("s3cr3t-value"), "\(text)")
            #expect(!text.contains("UkVDRUlQVA=="), "\(text)")
        }
    }

    private func dumped(_ value: some Any) -> String {
        var text = ""
        dump(value, to: &text)
        return text
    }
}
