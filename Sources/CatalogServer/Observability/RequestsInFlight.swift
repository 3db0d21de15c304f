import Synchronization

/// How many API requests this process is answering now, and the wait of background work while there are many.
///
/// ``ObservabilityMiddleware`` counts a request from its arrival to its answer's head (a streamed body, such as
/// the event stream's, is not counted while it streams, nor a long poll while it only waits: ``idle(_:)``; the
/// public identifier list, answered before routing in microseconds, is not counted at all).
/// Webhook deliveries and receipt verification run on the cores that answer requests: each round of theirs
/// (a page of deliveries per endpoint, a batch of receipt leases) first gives way while more than `busyAbove`
/// requests are in flight, at most `longestWait` (``giveWay()``), so that a burst of requests is answered first
/// and the background work follows it (docs/decisions.md, "Background work gives way to requests").
final class RequestsInFlight: Sendable {
    /// More requests than this at once is busy (0: background work never gives way).
    let busyAbove: Int
    /// The longest one round of background work gives way.
    let longestWait: Duration
    private let count = Atomic<Int>(0)

    init(busyAbove: Int = ServiceLimits.standard.busyRequests,
         longestWait: Duration = ServiceLimits.standard.busyWait) {
        self.busyAbove = busyAbove
        self.longestWait = longestWait
    }

    var current: Int { count.load(ordering: .relaxed) }

    func begin() {
        count.add(1, ordering: .relaxed)
    }

    func end() {
        count.subtract(1, ordering: .relaxed)
    }

    /// Runs `body`, a request's wait that takes no work of this process (a long poll for an outcome), without
    /// counting the request meanwhile.
    func idle<Result>(_ body: () async throws -> Result) async rethrows -> Result {
        end()
        defer { begin() }
        return try await body()
    }

    /// Waits while the process is busy, at most ``longestWait``; answers how long it waited.
    @discardableResult
    func giveWay() async throws -> Duration {
        try await giveWay(above: busyAbove, atMost: longestWait)
    }

    /// Waits while more than `limit` requests are in flight (`limit` 0: never), at most `longest`, looking every
    /// `interval`; answers how long it waited. Once busy, the process must stay at or below the limit for `settle`
    /// before the wait ends: requests written together are answered together, and the moment between one batch's
    /// answers and the clients' next requests is not the API being quiet.
    @discardableResult
    func giveWay(above limit: Int, atMost longest: Duration, interval: Duration = .milliseconds(10),
                 settle: Duration = .milliseconds(50)) async throws -> Duration {
        guard limit > 0, current > limit else { return .zero }
        let clock = ContinuousClock()
        let start = clock.now
        var quietSince: ContinuousClock.Instant?
        while clock.now - start < longest {
            try await Task.sleep(for: min(interval, longest - (clock.now - start)))
            if current > limit {
                quietSince = nil
            } else if let since = quietSince {
                if clock.now - since >= settle { break }
            } else {
                quietSince = clock.now
            }
        }
        return clock.now - start
    }
}
