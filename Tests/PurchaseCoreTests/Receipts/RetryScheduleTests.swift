import Foundation
import PurchaseCore
import Testing

/// A random source that always draws the same 64 bits, to pin the jitter at its bounds.
struct FixedRandom: RandomNumberGenerator {
    let value: UInt64
    mutating func next() -> UInt64 { value }
}

/// A reproducible random source (SplitMix64), for many draws.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite struct RetryScheduleTests {
    let schedule = RetrySchedule.standard
    let submittedAt = Date(timeIntervalSince1970: 1_700_000_000)

    @Test func standardIsDesignsSchedule() {
        #expect(schedule.firstDelay == .seconds(5))
        #expect(schedule.maximumDelay == .seconds(600))
        #expect(schedule.retryFor == .seconds(72 * 3600))
    }

    @Test func nominalDelaysDoubleUpToTheCap() {
        let delays = (1...10).map { schedule.nominalDelay(beforeRetry: $0) }
        #expect(delays == [5, 10, 20, 40, 80, 160, 320, 600, 600, 600].map { Duration.seconds($0) })
        #expect(schedule.nominalDelay(beforeRetry: 10_000) == .seconds(600), "no overflow, however many retries")
    }

    @Test func jitterOnlyTakesAwayAndAtMostItsFraction() {
        var lowest = FixedRandom(value: 0)
        var highest = FixedRandom(value: .max)
        for retry in 1...12 {
            let nominal = schedule.nominalDelay(beforeRetry: retry)
            #expect(schedule.delay(beforeRetry: retry, using: &lowest) == nominal, "a draw of 0 takes nothing away")
            let shortest = schedule.delay(beforeRetry: retry, using: &highest)
            #expect(shortest < nominal)
            #expect(shortest >= nominal * 0.8, "at most 20 % is taken away")
        }
    }

    @Test func theFirstRetryIsAboutFiveSeconds() {
        var random = SeededRandom(state: 1)
        for _ in 0..<1000 {
            let delay = schedule.delay(beforeRetry: 1, using: &random)
            #expect(delay > .seconds(4) && delay <= .seconds(5))
        }
    }

    @Test func jitterSpreadsReceiptsThatFailedTogether() {
        var random = SeededRandom(state: 42)
        let delays = Set((0..<100).map { _ in schedule.delay(beforeRetry: 6, using: &random) })
        #expect(delays.count > 90)
    }

    @Test func theScheduleNeverExceedsItsLimits() {
        var random = SeededRandom(state: 7)
        let deadline = schedule.deadline(forSubmissionAt: submittedAt)
        var now = submittedAt
        var retry = 1
        var attempts: [Date] = []
        while let next = schedule.nextAttempt(retry: retry, after: now, submittedAt: submittedAt, using: &random) {
            #expect(next > now)
            #expect(next.timeIntervalSince(now) <= 600, "never more than 10 minutes apart")
            #expect(next <= deadline, "never after the window")
            attempts.append(next)
            now = next.addingTimeInterval(10)  // each attempt takes its timeout
            retry += 1
        }
        #expect(attempts.last == deadline, "the last retry is moved up to the deadline, not dropped")
        // 72 h at no more than 10 min apart (less the jitter): at least 432 retries, and not absurdly many.
        #expect(attempts.count >= 432 && attempts.count < 600, "\(attempts.count)")
    }

    @Test func afterTheWindowThereIsNoNextAttempt() {
        var random = SeededRandom(state: 3)
        let deadline = schedule.deadline(forSubmissionAt: submittedAt)
        #expect(schedule.nextAttempt(retry: 5, after: deadline, submittedAt: submittedAt, using: &random) == nil)
        #expect(schedule.nextAttempt(retry: 5, after: deadline.addingTimeInterval(-1), submittedAt: submittedAt,
                                     using: &random) == deadline)
    }

    @Test func aShortWindowIsHonoured() {
        let short = schedule.retrying(for: .seconds(30))
        var random = FixedRandom(value: 0)
        #expect(short.nextAttempt(retry: 1, after: submittedAt, submittedAt: submittedAt, using: &random)
            == submittedAt.addingTimeInterval(5))
        #expect(short.nextAttempt(retry: 4, after: submittedAt.addingTimeInterval(20), submittedAt: submittedAt,
                                  using: &random) == submittedAt.addingTimeInterval(30))
    }

    @Test func nonsenseSettingsAreClamped() {
        let odd = RetrySchedule(firstDelay: .seconds(-1), maximumDelay: .seconds(-5), retryFor: .seconds(-3),
                                jitter: 7)
        #expect(odd.firstDelay == .zero)
        #expect(odd.maximumDelay == .zero)
        #expect(odd.retryFor == .zero)
        #expect(odd.jitter == 1)
    }
}
