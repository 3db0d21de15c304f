import Foundation
import PurchaseCore

/// Where and how the service asks the App Store: DESIGN.md's `APPSTORE_*` settings.
///
/// The same settings point the client at Apple (the defaults) or at the project's stand-in (two URLs of one
/// `appstore-standin serve` process): docs/purchases.md shows both.
public struct AppStoreClientConfiguration: Sendable, Hashable {
    /// `APPSTORE_VERIFY_RECEIPT_PRODUCTION_URL`: production's verifyReceipt.
    public var productionURL: URL
    /// `APPSTORE_VERIFY_RECEIPT_SANDBOX_URL`: the sandbox's verifyReceipt.
    public var sandboxURL: URL
    /// `APPSTORE_TIMEOUT_SECONDS`: how long one call may take, answer included (default 10 s).
    public var timeout: Duration
    /// `APPSTORE_CONCURRENCY`: calls to the App Store in flight in this process at most (default 256).
    public var concurrency: Int
    /// How many callers may wait for a free call beyond ``concurrency`` before the client answers "saturated"
    /// at once (default: as many as ``concurrency``). Bounded, so that memory is too.
    public var waitingCallers: Int
    /// `APPSTORE_RETRY_FOR`: how long a receipt is retried after its submission before it fails (default 72 h).
    public var retryFor: Duration
    /// The largest answer accepted, in bytes (default 8 MiB: a receipt with years of renewals is a few hundred KB).
    public var answerLimit: Int

    /// Apple's production verifyReceipt.
    public static let appleProductionURL = URL(string: "https://buy.itunes.apple.com/verifyReceipt")!
    /// Apple's sandbox verifyReceipt.
    public static let appleSandboxURL = URL(string: "https://sandbox.itunes.apple.com/verifyReceipt")!

    /// Apple's addresses and DESIGN.md's defaults.
    public static let standard = AppStoreClientConfiguration(
        productionURL: appleProductionURL, sandboxURL: appleSandboxURL, timeout: .seconds(10), concurrency: 256,
        waitingCallers: 256, retryFor: .seconds(72 * 3600), answerLimit: 8 << 20)

    public init(productionURL: URL, sandboxURL: URL, timeout: Duration, concurrency: Int, waitingCallers: Int,
                retryFor: Duration, answerLimit: Int) {
        self.productionURL = productionURL
        self.sandboxURL = sandboxURL
        self.timeout = timeout
        self.concurrency = concurrency
        self.waitingCallers = waitingCallers
        self.retryFor = retryFor
        self.answerLimit = answerLimit
    }

    /// The names this configuration reads.
    public enum Name {
        public static let productionURL = "APPSTORE_VERIFY_RECEIPT_PRODUCTION_URL"
        public static let sandboxURL = "APPSTORE_VERIFY_RECEIPT_SANDBOX_URL"
        public static let timeout = "APPSTORE_TIMEOUT_SECONDS"
        public static let concurrency = "APPSTORE_CONCURRENCY"
        public static let retryFor = "APPSTORE_RETRY_FOR"
    }

    /// Reads DESIGN.md's names from `environment` (the process's, or flags an executable puts over it), the
    /// defaults for those absent; a value that cannot be used is an error naming it and its rule.
    public init(environment: [String: String]) throws(AppStoreConfigurationError) {
        self = .standard
        if let text = environment[Name.productionURL] {
            productionURL = try Self.endpointURL(text, name: Name.productionURL)
        }
        if let text = environment[Name.sandboxURL] {
            sandboxURL = try Self.endpointURL(text, name: Name.sandboxURL)
        }
        if let text = environment[Name.timeout] {
            guard let seconds = Double(text.trimmingCharacters(in: .whitespaces)), seconds.isFinite,
                  seconds > 0, seconds <= 600
            else {
                throw AppStoreConfigurationError(
                    name: Name.timeout, "\"\(text)\" must be a number of seconds above 0 and at most 600 (e.g. 10)")
            }
            timeout = .milliseconds(Int64((seconds * 1000).rounded(.up)))
        }
        if let text = environment[Name.concurrency] {
            guard let count = Int(text.trimmingCharacters(in: .whitespaces)), (1...100_000).contains(count) else {
                throw AppStoreConfigurationError(
                    name: Name.concurrency, "\"\(text)\" must be a whole number from 1 to 100000 (e.g. 256)")
            }
            concurrency = count
            waitingCallers = count
        }
        if let text = environment[Name.retryFor] {
            retryFor = try DurationText.parse(text, name: Name.retryFor)
        }
    }

    /// The retry schedule these settings give: DESIGN.md's backoff for ``retryFor``.
    public var retrySchedule: RetrySchedule { RetrySchedule.standard.retrying(for: retryFor) }

    /// The address of `endpoint`.
    public func url(of endpoint: VerifyReceiptEndpoint) -> URL {
        switch endpoint {
        case .production: productionURL
        case .sandbox: sandboxURL
        }
    }

    static func endpointURL(_ text: String, name: String) throws(AppStoreConfigurationError) -> URL {
        guard let url = URL(string: text.trimmingCharacters(in: .whitespaces)),
              let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
              let host = url.host, !host.isEmpty
        else {
            throw AppStoreConfigurationError(
                name: name, "must be an http or https URL with a host, e.g. https://buy.itunes.apple.com/verifyReceipt")
        }
        guard url.user == nil, url.password == nil else {
            throw AppStoreConfigurationError(name: name, "must not carry a user name or password")
        }
        return url
    }
}
