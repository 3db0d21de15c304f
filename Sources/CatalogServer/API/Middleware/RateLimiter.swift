import Foundation
import Synchronization

/// A token bucket per API key, in memory: each key may make `rate` requests per second on average and
/// `burst` at once. Each server process counts its own requests, so behind a load balancer of N replicas a
/// key may reach N times the rate; the limit is there to stop runaway clients, not to meter them exactly.
final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    let rate: Double
    let burst: Double
    private let buckets = Mutex<[UUID: Bucket]>([:])
    private let clock = ContinuousClock()

    init(rate: Double, burst: Int) {
        self.rate = rate
        self.burst = Double(burst)
    }

    /// `nil` when the request may go on; otherwise how long to wait before the next one would.
    func admit(_ key: UUID) -> Duration? {
        let now = clock.now
        return buckets.withLock { buckets -> Duration? in
            var bucket = buckets[key] ?? Bucket(tokens: burst, updated: now)
            let elapsed = now - bucket.updated
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            bucket.tokens = min(burst, bucket.tokens + seconds * rate)
            bucket.updated = now
            defer { buckets[key] = bucket }
            guard bucket.tokens >= 1 else { return .seconds((1 - bucket.tokens) / rate) }
            bucket.tokens -= 1
            return nil
        }
    }
}
