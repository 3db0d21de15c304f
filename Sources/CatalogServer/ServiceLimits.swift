/// The bounds that keep the service responsive under load and abuse. `iap-server serve` reads each from
/// the environment (docs/operations.md lists the variables).
public struct ServiceLimits: Sendable {
    /// Database connections in the pool, which is also how many database operations run at once.
    public var databaseConnections = 20
    /// Operations that may wait for a connection; beyond, requests are refused at once with 503.
    public var databaseQueue = 256
    /// How long an operation may wait for a connection before the request is answered 503.
    public var databaseWait: Duration = .seconds(5)
    /// How long one SQL statement may run before PostgreSQL cancels it.
    public var statementTimeout: Duration = .seconds(30)
    /// How long a connection may stay idle (between requests, or while a slow client sends one).
    public var idleTimeout: Duration = .seconds(60)
    /// Requests per second each API key may make on average, and in a burst.
    public var requestsPerSecondPerKey: Double = 100
    public var burstPerKey: Int = 200
    /// The same for a client key, which every install of its app shares.
    public var requestsPerSecondPerClientKey: Double = 5_000
    public var burstPerClientKey: Int = 10_000
    /// Purchases each account token of an app may submit per second on average, and in a burst.
    public var submissionsPerSecondPerAccount: Double = 5
    public var burstPerAccount: Int = 20
    /// Event streams (`GET /v1/events` as Server-Sent Events) served at once; beyond, 503.
    public var eventStreams = 1_000
    /// How often a quiet event stream sends a comment, so that clients and proxies know it is alive.
    public var eventStreamHeartbeat: Duration = .seconds(15)
    /// Background work gives way to requests: while the process answers more than `busyRequests` requests at once
    /// (0: never), each round of webhook deliveries (a page per endpoint) and of receipt leases waits for it to be
    /// less busy, at most `busyWait` (``RequestsInFlight``; docs/decisions.md).
    public var busyRequests = 16
    public var busyWait: Duration = .seconds(1)

    public init() {}

    public static let standard = ServiceLimits()
}
