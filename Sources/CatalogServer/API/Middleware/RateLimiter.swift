import Foundation
import HTTPTypes
import Synchronization

/// A token bucket per key (an API key's id, an app's account token), in memory: each key may make `rate`
/// requests per second on average and `burst` at once. Each server process counts its own requests, so behind a
/// load balancer of N replicas a key may reach N times the rate; the limit is there to stop runaway clients, not
/// to meter them exactly.
///
/// Buckets that have refilled are forgotten once more than ``sweepAbove`` are kept (a full bucket is what a new
/// key gets anyway), so that a flood of distinct keys (account tokens are the client's to choose) costs memory
/// for the keys active within `burst / rate` seconds only.
final class RateLimiter<Key: Hashable & Sendable>: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    private struct State {
        var buckets: [Key: Bucket] = [:]
        var sweepAt: Int
    }

    let rate: Double
    let burst: Double
    /// How many buckets are kept before the full ones are forgotten.
    let sweepAbove: Int
    private let state: Mutex<State>
    private let clock = ContinuousClock()

    init(rate: Double, burst: Int, sweepAbove: Int = 10_000) {
        self.rate = rate
        self.burst = Double(burst)
        self.sweepAbove = sweepAbove
        state = Mutex(State(sweepAt: sweepAbove))
    }

    /// `nil` when the request may go on; otherwise how long to wait before the next one would.
    func admit(_ key: Key) -> Duration? {
        let now = clock.now
        return state.withLock { state -> Duration? in
            if state.buckets.count >= state.sweepAt { sweep(&state, now: now) }
            var bucket = state.buckets[key] ?? Bucket(tokens: burst, updated: now)
            bucket.tokens = min(burst, bucket.tokens + seconds(now - bucket.updated) * rate)
            bucket.updated = now
            defer { state.buckets[key] = bucket }
            guard bucket.tokens >= 1 else { return .seconds((1 - bucket.tokens) / rate) }
            bucket.tokens -= 1
            return nil
        }
    }

    /// How many keys have a bucket, for tests.
    var keptBuckets: Int { state.withLock { $0.buckets.count } }

    /// Forgets the buckets that have refilled; the next sweep comes when twice as many are kept as remain (at
    /// least ``sweepAbove``), so that sweeping costs a constant per request however many keys are active.
    private func sweep(_ state: inout State, now: ContinuousClock.Instant) {
        state.buckets = state.buckets.filter { _, bucket in
            bucket.tokens + seconds(now - bucket.updated) * rate < burst
        }
        state.sweepAt = max(sweepAbove, state.buckets.count * 2)
    }

    private func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

extension RateLimiter {
    /// Admits a request of `key`, or throws the 429 to answer: `title`, the limit in its detail (`what` is
    /// counted, e.g. "requests per second") and `Retry-After` the wait, whichever door the request came through.
    func admitOrRefuse(_ key: Key, title: String = "Too many requests for this key",
                       what: String = "requests per second") throws(Problem) {
        guard let wait = admit(key) else { return }
        var problem = Problem("rate-limited", .tooManyRequests, title,
                              detail: "at most \(rate) \(what) on average, \(Int(burst)) at once")
        problem.headers[.retryAfter] = String(max(1, Int(wait.components.seconds) + 1))
        throw problem
    }
}
