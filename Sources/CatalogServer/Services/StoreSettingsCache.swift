import CatalogStore
import Foundation
import PurchaseCore
import Synchronization

/// The store settings of the apps that receive purchases, kept in memory for a moment: every signed purchase
/// needs them (which environments, whether Xcode), and reading them would be a database round trip per
/// request. A change made through this server replaces its entry at once; another server's change is seen
/// within ``lifetime``. An app that does not exist is remembered as such for as long.
final class StoreSettingsCache: Sendable {
    /// How long an entry is trusted.
    static let lifetime: Duration = .seconds(1)
    /// Entries kept at most; beyond, the cache starts over (a flood of made-up bundle ids costs no more).
    static let capacity = 10_000

    private struct Entry {
        let settings: StoreSettings?
        let expires: ContinuousClock.Instant
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let clock = ContinuousClock()

    /// The app's settings (`nil`: no such app), from memory if read less than ``lifetime`` ago.
    func settings(_ bundleID: String, from repository: StoreSettingsRepository) async throws -> StoreSettings? {
        let now = clock.now
        if let entry = entries.withLock({ $0[bundleID] }), entry.expires > now { return entry.settings }
        let settings = try await repository.find(bundleID)
        store(settings, for: bundleID, at: now)
        return settings
    }

    /// Replaces the app's entry with settings this server just saved.
    func replace(_ bundleID: String, with settings: StoreSettings) {
        store(settings, for: bundleID, at: clock.now)
    }

    private func store(_ settings: StoreSettings?, for bundleID: String, at now: ContinuousClock.Instant) {
        entries.withLock { entries in
            if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
            entries[bundleID] = Entry(settings: settings, expires: now.advanced(by: Self.lifetime))
        }
    }
}
