import CatalogStore
import Foundation
import PurchaseCore
import Synchronization

/// What ``ReceiptVerificationService`` holds: the submissions it leased and has not recorded yet, with the task
/// asking the App Store for each, whether it is stopping, and the leases to give back when it stops.
final class HeldAttempts: Sendable {
    private struct State {
        var verifications: [UUID: Task<ReceiptOutcome, any Error>?] = [:]
        var stopping = false
        var cancelled = false
        var released: [SubmissionQueue.Lease] = []
    }

    private let state = Mutex(State())

    /// Submissions leased and not yet recorded.
    var count: Int { state.withLock { $0.verifications.count } }

    var isStopping: Bool { state.withLock { $0.stopping } }

    func add(_ lease: SubmissionQueue.Lease) {
        state.withLock { $0.verifications[lease.submissionID] = .some(nil) }
    }

    /// Keeps the task asking the App Store for `id`, so that stopping can end it; ends it at once when stopping
    /// already ended the others.
    func attach(_ verification: Task<ReceiptOutcome, any Error>, to id: UUID) {
        let cancelled = state.withLock { state -> Bool in
            guard !state.cancelled else { return true }
            state.verifications[id] = verification
            return false
        }
        if cancelled { verification.cancel() }
    }

    func remove(_ id: UUID) {
        _ = state.withLock { $0.verifications.removeValue(forKey: id) }
    }

    /// No more leases.
    func stop() {
        state.withLock { $0.stopping = true }
    }

    /// Ends every call to the App Store still in flight (their leases are given back).
    func cancelVerifications() {
        let tasks = state.withLock { state -> [Task<ReceiptOutcome, any Error>] in
            state.cancelled = true
            return state.verifications.values.compactMap { $0 }
        }
        for task in tasks { task.cancel() }
    }

    /// A lease whose attempt ended without an answer, to give back.
    func released(_ lease: SubmissionQueue.Lease) {
        state.withLock { $0.released.append(lease) }
    }

    func takeReleased() -> [SubmissionQueue.Lease] {
        state.withLock { state in
            defer { state.released = [] }
            return state.released
        }
    }
}
