import Foundation

/// DESIGN.md's status table over time: after each attempt to verify a submitted receipt, whether it is verified,
/// invalid, due again (and when), or failed.
///
/// 21002 (malformed data, or a temporary issue Apple cannot tell apart) is retried at most
/// ``malformedRetries`` times, then invalid; every other undecided outcome is retried on ``schedule`` until
/// its window closes, then failed.
public struct ReceiptSubmissionRule: Sendable, Hashable {
    /// When retries are due, and for how long.
    public var schedule: RetrySchedule
    /// How many times a 21002 answer is retried before the receipt is invalid (DESIGN.md: 3).
    public var malformedRetries: Int

    public init(schedule: RetrySchedule = .standard, malformedRetries: Int = 3) {
        self.schedule = schedule
        self.malformedRetries = max(0, malformedRetries)
    }

    /// The facts of one attempt the rule needs.
    public struct Attempt: Sendable, Hashable {
        /// This attempt's number: 1 for the first.
        public var number: Int
        /// How many earlier attempts of the same submission were answered 21002.
        public var malformedAnswersBefore: Int
        /// When the receipt was submitted: the retry window starts there.
        public var submittedAt: Date
        /// When this attempt ended.
        public var endedAt: Date

        public init(number: Int, malformedAnswersBefore: Int, submittedAt: Date, endedAt: Date) {
            self.number = number
            self.malformedAnswersBefore = malformedAnswersBefore
            self.submittedAt = submittedAt
            self.endedAt = endedAt
        }
    }

    /// What follows an attempt.
    public enum Step: Sendable, Hashable {
        /// Done: the receipt is verified.
        case verified(VerifiedReceipt)
        /// Done: the receipt is invalid.
        case invalid(ReceiptRefusal)
        /// Try again at this time (never later than the window's end, never more than the schedule's cap away).
        case retry(at: Date, because: ReceiptRetryReason)
        /// Done: the window closed without a decision; the last reason.
        case failed(ReceiptRetryReason)

        /// The submission's status after this step.
        public var status: SubmissionStatus {
            switch self {
            case .verified: .verified
            case .invalid: .invalid
            case .retry: .retrying
            case .failed: .failed
            }
        }
    }

    /// The step after `attempt` came to `outcome`; `random` draws the jitter.
    public func step(after outcome: ReceiptOutcome, attempt: Attempt,
                     using random: inout some RandomNumberGenerator) -> Step {
        switch outcome {
        case .verified(let receipt):
            return .verified(receipt)
        case .invalid(let refusal):
            return .invalid(refusal)
        case .retry(.malformedReceiptData) where attempt.malformedAnswersBefore >= malformedRetries:
            return .invalid(.appleStatus(.malformedReceiptData))
        case .retry(let reason):
            guard let due = schedule.nextAttempt(retry: attempt.number, after: attempt.endedAt,
                                                 submittedAt: attempt.submittedAt, using: &random)
            else { return .failed(reason) }
            return .retry(at: due, because: reason)
        }
    }

    /// The same, with the system's random numbers.
    public func step(after outcome: ReceiptOutcome, attempt: Attempt) -> Step {
        var random = SystemRandomNumberGenerator()
        return step(after: outcome, attempt: attempt, using: &random)
    }
}
