import Foundation
import Synchronization

/// What the stand-in has answered: calls in flight (and the most at once), answers by status, and per receipt
/// the calls at each endpoint and the verifications (status 0), so that tests can prove "verified once".
public final class VerificationCounts: Sendable {
    /// One receipt's calls.
    public struct PerReceipt: Sendable, Hashable, Codable {
        /// Calls at the production endpoint.
        public var production = 0
        /// Calls at the sandbox endpoint.
        public var sandbox = 0
        /// Answers with status 0.
        public var verified = 0
        /// Calls at the receipt's own endpoint that reached its status (forced statuses count down with these).
        public var answered = 0

        public init() {}
    }

    /// Everything at once: the body of `GET /standin/verifications`.
    public struct Summary: Sendable, Hashable, Codable {
        /// verifyReceipt calls received.
        public var calls: Int
        /// Calls being answered now.
        public var inFlight: Int
        /// The most calls in flight at once since the start (or the last reset).
        public var maxInFlight: Int
        /// Answers by status (`"0"`, `"21007"`, …; `"503"` for outage answers, `"dropped"` for dropped calls).
        public var answers: [String: Int]
        /// Per receipt id.
        public var receipts: [String: PerReceipt]
    }

    private struct State {
        var calls = 0
        var inFlight = 0
        var maxInFlight = 0
        var answers: [String: Int] = [:]
        var receipts: [UUID: PerReceipt] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    /// A call arrived.
    func callStarted() {
        state.withLock { state in
            state.calls += 1
            state.inFlight += 1
            state.maxInFlight = max(state.maxInFlight, state.inFlight)
        }
    }

    /// A call was answered (`answer` is the status, or `503`), for `receipt` at `endpoint` when it was ours.
    func callEnded(answer: String, receipt: UUID?, at endpoint: String) {
        state.withLock { state in
            state.inFlight -= 1
            state.answers[answer, default: 0] += 1
            guard let receipt else { return }
            var counts = state.receipts[receipt] ?? PerReceipt()
            if endpoint == "production" { counts.production += 1 } else { counts.sandbox += 1 }
            if answer == "0" { counts.verified += 1 }
            state.receipts[receipt] = counts
        }
    }

    /// Counts a call of `receipt` at its own endpoint that reached its status, and says how many came before
    /// it: one step, so that concurrent calls count a forced status down exactly.
    func claimAnswer(of receipt: UUID) -> Int {
        state.withLock { state in
            var counts = state.receipts[receipt] ?? PerReceipt()
            let before = counts.answered
            counts.answered += 1
            state.receipts[receipt] = counts
            return before
        }
    }

    /// One receipt's counts (zero when never seen).
    public func receipt(_ id: UUID) -> PerReceipt {
        state.withLock { $0.receipts[id] ?? PerReceipt() }
    }

    /// Calls in flight now.
    public var inFlight: Int { state.withLock { $0.inFlight } }

    /// Everything.
    public func summary() -> Summary {
        state.withLock { state in
            Summary(calls: state.calls, inFlight: state.inFlight, maxInFlight: state.maxInFlight,
                    answers: state.answers,
                    receipts: Dictionary(uniqueKeysWithValues: state.receipts.map { ($0.key.uuidString, $0.value) }))
        }
    }

    /// Forgets everything but the calls in flight.
    public func reset() {
        state.withLock { state in
            state = State(inFlight: state.inFlight, maxInFlight: state.inFlight)
        }
    }
}
