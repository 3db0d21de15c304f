import CatalogStore
import Foundation
import Synchronization

/// What ``ReceiptVerificationService`` holds: the submissions it leased and has not recorded yet, whether it is
/// stopping, and the leases to give back when it stops.
final class HeldAttempts: Sendable {
    private struct State {
        var leased: Set<UUID> = []
        var stopping = false
        var released: [SubmissionQueue.Lease] = []
    }

    private let state = Mutex(State())

    /// Submissions leased and not yet recorded.
    var count: Int { state.withLock { $0.leased.count } }

    var isStopping: Bool { state.withLock { $0.stopping } }

    func add(_ lease: SubmissionQueue.Lease) {
        _ = state.withLock { $0.leased.insert(lease.submissionID) }
    }

    func remove(_ id: UUID) {
        _ = state.withLock { $0.leased.remove(id) }
    }

    /// No more leases.
    func stop() {
        state.withLock { $0.stopping = true }
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
