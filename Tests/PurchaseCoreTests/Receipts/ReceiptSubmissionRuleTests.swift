import Foundation
import PurchaseCore
import Testing

/// The table over time: 21002's three retries, the window, and the status each step leaves.
@Suite struct ReceiptSubmissionRuleTests {
    let rule = ReceiptSubmissionRule()
    let submittedAt = Date(timeIntervalSince1970: 1_700_000_000)

    func attempt(_ number: Int, malformedBefore: Int = 0, after seconds: TimeInterval = 10)
        -> ReceiptSubmissionRule.Attempt {
        .init(number: number, malformedAnswersBefore: malformedBefore, submittedAt: submittedAt,
              endedAt: submittedAt.addingTimeInterval(seconds))
    }

    func step(_ outcome: ReceiptOutcome, _ attempt: ReceiptSubmissionRule.Attempt) -> ReceiptSubmissionRule.Step {
        var random = FixedRandom(value: 0)
        return rule.step(after: outcome, attempt: attempt, using: &random)
    }

    @Test func decidedOutcomesAreFinal() {
        let receipt = VerifiedReceipt(environment: .sandbox, bundleId: "b", transactions: [])
        #expect(step(.verified(receipt), attempt(1)) == .verified(receipt))
        #expect(step(.verified(receipt), attempt(1)).status == .verified)
        #expect(step(.invalid(.appleStatus(.wrongSharedSecret)), attempt(1)).status == .invalid)
    }

    @Test func malformedDataIsRetriedThreeTimesThenInvalid() {
        for before in 0..<3 {
            #expect(step(.retry(.malformedReceiptData), attempt(before + 1, malformedBefore: before)).status
                == .retrying, "21002 number \(before + 1)")
        }
        #expect(step(.retry(.malformedReceiptData), attempt(4, malformedBefore: 3))
            == .invalid(.appleStatus(.malformedReceiptData)))
        #expect(step(.retry(.malformedReceiptData), attempt(9, malformedBefore: 3)).status == .invalid,
                "other retries in between do not reset the count")
    }

    @Test func temporaryOutcomesAreRetriedOnTheSchedule() {
        let due = submittedAt.addingTimeInterval(10 + 5)
        #expect(step(.retry(.timedOut), attempt(1)) == .retry(at: due, because: .timedOut))
        let later = step(.retry(.httpStatus(503)), attempt(3, after: 100))
        #expect(later == .retry(at: submittedAt.addingTimeInterval(100 + 20), because: .httpStatus(503)))
    }

    @Test func theWindowClosesIntoFailed() {
        let end = 72.0 * 3600
        #expect(step(.retry(.timedOut), attempt(500, after: end)) == .failed(.timedOut))
        #expect(step(.retry(.timedOut), attempt(500, after: end)).status == .failed)
        #expect(step(.retry(.malformedReceiptData), attempt(2, malformedBefore: 1, after: end + 1))
            == .failed(.malformedReceiptData), "21002 past the window fails rather than waiting")
    }

    @Test func statusesSayWhichAreFinal() {
        #expect(SubmissionStatus.allCases.filter(\.isFinal) == [.verified, .invalid, .failed])
        #expect(SubmissionStatus.allCases.map(\.rawValue)
            == ["queued", "verifying", "retrying", "verified", "invalid", "failed"])
    }
}
