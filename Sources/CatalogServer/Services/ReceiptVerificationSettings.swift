import AppStoreClient
import Foundation
import PurchaseCore

/// How a server process verifies queued receipts: where and how it asks the App Store (DESIGN.md's `APPSTORE_*`
/// settings, ``AppStoreClientConfiguration``) and how it holds the queue's work. `iap-server serve` reads them
/// from the environment and its flags (docs/operations.md).
public struct ReceiptVerificationSettings: Sendable {
    /// The App Store client's settings; its `concurrency` (`APPSTORE_CONCURRENCY`) is also the most submissions
    /// this process leases at once.
    public var appStore: AppStoreClientConfiguration
    /// `APPSTORE_LEASE_SECONDS`: how long a leased submission is this process's before another may take it.
    /// Longer than the worst case of one attempt (two calls, one per endpoint, each within the timeout), so that
    /// only a process that died or lost the database loses its leases.
    public var lease: Duration
    /// How often an idle worker looks for work other processes queued or that came due (a retry's time is
    /// waited for exactly when it is sooner).
    public var poll: Duration = .seconds(1)
    /// The most submissions one lease statement takes.
    public var leaseBatch = 256
    /// How long a worker asked to stop lets the attempts in flight finish before it gives their leases back.
    public var shutdownGrace: Duration
    /// When undecided receipts are tried again: DESIGN.md's backoff for `APPSTORE_RETRY_FOR` (tests shorten its
    /// delays).
    public var retrySchedule: RetrySchedule

    /// The names this reads beyond ``AppStoreClientConfiguration``'s.
    public enum Name {
        public static let lease = "APPSTORE_LEASE_SECONDS"
    }

    public init(appStore: AppStoreClientConfiguration) {
        self.appStore = appStore
        lease = Self.defaultLease(timeout: appStore.timeout)
        shutdownGrace = appStore.timeout
        retrySchedule = appStore.retrySchedule
    }

    /// Reads the `APPSTORE_*` names from `environment` (the process's, with flags put over it), the defaults for
    /// those absent; a value that cannot be used is an error naming it and its rule.
    public init(environment: [String: String]) throws(AppStoreConfigurationError) {
        self.init(appStore: try AppStoreClientConfiguration(environment: environment))
        if let text = environment[Name.lease] {
            let shortest = appStore.timeout * 2
            guard let seconds = Double(text.trimmingCharacters(in: .whitespaces)), seconds.isFinite,
                  seconds <= 86_400, Duration.milliseconds(Int64((seconds * 1000).rounded(.up))) > shortest
            else {
                throw AppStoreConfigurationError(
                    name: Name.lease, "\"\(text)\" must be a number of seconds above twice APPSTORE_TIMEOUT_SECONDS "
                        + "(an attempt may call both endpoints) and at most 86400 (e.g. 35)")
            }
            lease = .milliseconds(Int64((seconds * 1000).rounded(.up)))
        }
    }

    /// Twice the call timeout (production, then the sandbox) and 15 s to record the outcome.
    public static func defaultLease(timeout: Duration) -> Duration {
        timeout * 2 + .seconds(15)
    }
}
