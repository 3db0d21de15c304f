import AppStoreClient
import Foundation
import PurchaseCore
import Testing

/// DESIGN.md's `APPSTORE_*` names, their defaults, and clear errors for values that cannot be used.
@Suite struct AppStoreClientConfigurationTests {
    @Test func defaultsAreApplesAndDesigns() throws {
        let configuration = try AppStoreClientConfiguration(environment: [:])
        #expect(configuration.productionURL.absoluteString == "https://buy.itunes.apple.com/verifyReceipt")
        #expect(configuration.sandboxURL.absoluteString == "https://sandbox.itunes.apple.com/verifyReceipt")
        #expect(configuration.timeout == .seconds(10))
        #expect(configuration.concurrency == 256)
        #expect(configuration.retryFor == .seconds(72 * 3600))
        #expect(configuration.retrySchedule == RetrySchedule.standard)
    }

    @Test func everyNameIsRead() throws {
        let configuration = try AppStoreClientConfiguration(environment: [
            "APPSTORE_VERIFY_RECEIPT_PRODUCTION_URL": "http://127.0.0.1:8091/verifyReceipt",
            "APPSTORE_VERIFY_RECEIPT_SANDBOX_URL": "http://127.0.0.1:8091/sandbox/verifyReceipt",
            "APPSTORE_TIMEOUT_SECONDS": "2.5",
            "APPSTORE_CONCURRENCY": "3000",
            "APPSTORE_RETRY_FOR": "30m",
        ])
        #expect(configuration.url(of: .production).absoluteString == "http://127.0.0.1:8091/verifyReceipt")
        #expect(configuration.url(of: .sandbox).absoluteString == "http://127.0.0.1:8091/sandbox/verifyReceipt")
        #expect(configuration.timeout == .milliseconds(2500))
        #expect(configuration.concurrency == 3000)
        #expect(configuration.waitingCallers == 3000)
        #expect(configuration.retryFor == .seconds(1800))
        #expect(configuration.retrySchedule.retryFor == .seconds(1800))
        #expect(configuration.retrySchedule.firstDelay == .seconds(5))
    }

    @Test(arguments: [
        ("APPSTORE_VERIFY_RECEIPT_PRODUCTION_URL", "buy.itunes.apple.com/verifyReceipt", "http or https URL"),
        ("APPSTORE_VERIFY_RECEIPT_SANDBOX_URL", "ftp://example.com/verifyReceipt", "http or https URL"),
        ("APPSTORE_VERIFY_RECEIPT_SANDBOX_URL", "https://user:pw@example.com/verifyReceipt", "user name or password"),
        ("APPSTORE_TIMEOUT_SECONDS", "ten", "number of seconds"),
        ("APPSTORE_TIMEOUT_SECONDS", "0", "above 0"),
        ("APPSTORE_TIMEOUT_SECONDS", "-3", "above 0"),
        ("APPSTORE_CONCURRENCY", "0", "from 1 to 100000"),
        ("APPSTORE_CONCURRENCY", "many", "from 1 to 100000"),
        ("APPSTORE_RETRY_FOR", "72", "needs a unit"),
        ("APPSTORE_RETRY_FOR", "3w", "unknown unit \"w\""),
        ("APPSTORE_RETRY_FOR", "", "is empty"),
        ("APPSTORE_RETRY_FOR", "0h", "longer than zero"),
        ("APPSTORE_RETRY_FOR", "h", "not a duration"),
    ])
    func unusableValuesNameTheirSettingAndRule(name: String, value: String, rule: String) {
        #expect {
            _ = try AppStoreClientConfiguration(environment: [name: value])
        } throws: { error in
            guard let error = error as? AppStoreConfigurationError else { return false }
            return error.name == name && error.description.hasPrefix(name) && error.message.contains(rule)
        }
    }

    @Test func credentialsInAURLAreNotEchoed() {
        #expect {
            _ = try AppStoreClientConfiguration(environment: [
                "APPSTORE_VERIFY_RECEIPT_PRODUCTION_URL": "https://user:hunter2@example.com/verifyReceipt",
            ])
        } throws: { error in !"\(error)".contains("hunter2") }
    }

    @Test(arguments: [
        ("72h", Duration.seconds(72 * 3600)), ("30m", .seconds(1800)), ("90s", .seconds(90)), ("1d", .seconds(86400)),
        ("1h30m", .seconds(5400)), ("500ms", .milliseconds(500)), ("1.5h", .seconds(5400)), (" 45s ", .seconds(45)),
    ])
    func durations(text: String, expected: Duration) throws {
        #expect(try DurationText.parse(text, name: "APPSTORE_RETRY_FOR") == expected)
    }
}
