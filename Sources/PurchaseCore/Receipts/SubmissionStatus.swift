/// Where a purchase submission stands (DESIGN.md: a submission's `status`).
///
/// A signed transaction is decided in its request (`verified` or `invalid`); a receipt goes through the queue:
/// `queued` → `verifying` → `verified`, `invalid`, or `retrying` → `verifying` → … until decided or `failed`.
public enum SubmissionStatus: String, Sendable, Hashable, CaseIterable, Codable {
    /// Accepted and stored, not yet tried.
    case queued
    /// A worker holds it and is asking the App Store now.
    case verifying
    /// An attempt did not decide (Apple down, slow, or temporarily in error); the next is due at `nextAttemptAt`.
    case retrying
    /// The App Store says the purchase is real: its transactions are in the ledger.
    case verified
    /// The App Store says the proof will never verify (the status and its meaning are kept); nothing credited.
    case invalid
    /// No decision within `APPSTORE_RETRY_FOR` of the submission: nothing credited, an operator may retry it.
    case failed

    /// Whether the status is final: no worker will touch the submission again on its own.
    public var isFinal: Bool {
        switch self {
        case .verified, .invalid, .failed: true
        case .queued, .verifying, .retrying: false
        }
    }
}
