import CatalogTestSupport
import Foundation
import Testing

/// `iap-server serve` refuses settings from the environment that it cannot use, before it starts: it names the
/// variable and its rule, and exits with a usage error.
@Suite("Serve settings")
struct ServeSettingsTests {
    @Test("a value out of range or not a number is refused, naming the variable and the rule", arguments: [
        ("BUSY_REQUESTS", "-1", "BUSY_REQUESTS must be a whole number of requests from 0"),
        ("BUSY_REQUESTS", "many", "BUSY_REQUESTS must be a whole number of requests from 0"),
        ("BUSY_WAIT_SECONDS", "61", "BUSY_WAIT_SECONDS must be a number of seconds from 0 to 60"),
        ("WEBHOOK_RETRY_HOURS", "1000", "WEBHOOK_RETRY_HOURS must be a number of hours from 0 to 720"),
    ])
    func refused(_ setting: (name: String, value: String, message: String)) async throws {
        let url = try await TestDatabase.empty("serve_settings")
        let run = try await ServerProcess.command(["serve", "--port", "0"], databaseURL: url,
                                                  environment: [setting.name: setting.value], timeout: .seconds(60))
        #expect(run.status != 0, "\(setting.name)=\(setting.value) was accepted")
        #expect(run.errors.contains(setting.message), "\(run.errors)")
    }
}
