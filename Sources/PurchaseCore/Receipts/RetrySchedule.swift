import Foundation

/// When a verification that did not decide is tried again: exponential backoff with jitter, from about
/// ``firstDelay`` up to ``maximumDelay`` apart, for ``retryFor`` after the submission; after that, failed.
///
/// The n-th retry's nominal delay is `firstDelay × 2^(n−1)`, capped at `maximumDelay`; the jitter takes up to
/// ``jitter`` of it away (never adds), so retries of many receipts that failed together (an outage) spread out
/// while no delay ever exceeds the cap. The last retry is moved up to the deadline rather than past it.
public struct RetrySchedule: Sendable, Hashable {
    /// The nominal delay before the first retry (DESIGN.md: about 5 s).
    public var firstDelay: Duration
    /// The longest delay between two attempts (DESIGN.md: 10 minutes).
    public var maximumDelay: Duration
    /// How long after the submission retries go on (`APPSTORE_RETRY_FOR`, 72 hours by default).
    public var retryFor: Duration
    /// The fraction of each delay the jitter may take away, in 0...1.
    public var jitter: Double

    /// DESIGN.md's schedule: about 5 s, doubling, at most 10 minutes apart, for 72 hours, up to 20 % jitter.
    public static let standard = RetrySchedule(
        firstDelay: .seconds(5), maximumDelay: .seconds(600), retryFor: .seconds(72 * 3600), jitter: 0.2)

    public init(firstDelay: Duration, maximumDelay: Duration, retryFor: Duration, jitter: Double) {
        self.firstDelay = max(firstDelay, .zero)
        self.maximumDelay = max(maximumDelay, self.firstDelay)
        self.retryFor = max(retryFor, .zero)
        self.jitter = min(max(jitter, 0), 1)
    }

    /// The same schedule with another `retryFor`.
    public func retrying(for duration: Duration) -> RetrySchedule {
        RetrySchedule(firstDelay: firstDelay, maximumDelay: maximumDelay, retryFor: duration, jitter: jitter)
    }

    /// The nominal (jitter-free) delay before retry number `retry` (1 for the first), capped.
    public func nominalDelay(beforeRetry retry: Int) -> Duration {
        let first = firstDelay.timeInterval
        let cap = maximumDelay.timeInterval
        // 2^(n−1) overflows nothing as a Double, and the cap is reached long before it matters.
        let exponent = Double(max(retry, 1) - 1)
        return .seconds(min(cap, first * pow(2, min(exponent, 64))))
    }

    /// The delay before retry number `retry`: the nominal delay less a random part of up to ``jitter`` of it.
    public func delay(beforeRetry retry: Int, using random: inout some RandomNumberGenerator) -> Duration {
        let nominal = nominalDelay(beforeRetry: retry).timeInterval
        let taken = jitter == 0 ? 0 : Double.random(in: 0..<1, using: &random) * jitter
        return .seconds(nominal * (1 - taken))
    }

    /// The last moment a retry may be due for a submission made at `submittedAt`.
    public func deadline(forSubmissionAt submittedAt: Date) -> Date {
        submittedAt.addingTimeInterval(retryFor.timeInterval)
    }

    /// When retry number `retry` is due, after an attempt that ended at `now`, for a submission made at
    /// `submittedAt`; `nil` when the retry window is over (the submission has failed).
    public func nextAttempt(retry: Int, after now: Date, submittedAt: Date,
                            using random: inout some RandomNumberGenerator) -> Date? {
        let deadline = deadline(forSubmissionAt: submittedAt)
        guard now < deadline else { return nil }
        let due = now.addingTimeInterval(delay(beforeRetry: retry, using: &random).timeInterval)
        return min(due, deadline)
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
