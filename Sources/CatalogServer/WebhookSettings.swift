import CatalogCore
import PurchaseCore
import WebhookClient

/// How this process delivers webhooks: the addresses they may reach, each attempt's bounds, the retry schedule,
/// the leases that share endpoints among processes. `iap-server serve` reads each from the environment
/// (docs/operations.md lists the variables).
public struct WebhookSettings: Sendable {
    /// Whether this process delivers (`WEBHOOK_DELIVERY=off`: another process does; the API still manages them).
    public var delivers = true
    /// Which addresses endpoints may reach, judged at creation and before every attempt.
    public var policy = WebhookAddressPolicy()
    /// How long connecting and a whole attempt may take, and how much of an answer is read.
    public var connectTimeout: Duration = .seconds(5)
    public var timeout: Duration = .seconds(15)
    public var answerLimit = 64 * 1024
    /// What host names resolve to (the system's resolver; tests inject theirs).
    public var resolver: any HostResolver = SystemHostResolver()
    /// How long a resolved name is used before it is asked again.
    public var resolutionTTL: Duration = .seconds(10)
    /// When a failed event is tried again: about 5 s, doubling, at most 10 minutes apart, for 3 days from its
    /// first failure, up to 20 % jitter; after that the endpoint is disabled.
    public var retry = RetrySchedule(firstDelay: .seconds(5), maximumDelay: .seconds(600), retryFor: .seconds(3 * 86_400),
                                     jitter: 0.2)
    /// How long a process's hold on an endpoint lasts without renewal: after a crash, how long until another
    /// process (or the restarted one) takes the endpoint over.
    public var lease: Duration = .seconds(30)
    /// How often the process looks for endpoints to take and renews those it holds.
    public var claimInterval: Duration = .seconds(1)
    /// The most endpoints one process delivers to at once.
    public var endpointsPerProcess = WebhookEndpoint.maximumCount

    public init() {}

    public static let standard = WebhookSettings()

    /// The sender's settings.
    var sender: WebhookSenderSettings {
        var settings = WebhookSenderSettings(policy: policy)
        settings.connectTimeout = connectTimeout
        settings.timeout = timeout
        settings.answerLimit = answerLimit
        settings.resolutionTTL = resolutionTTL
        return settings
    }
}
