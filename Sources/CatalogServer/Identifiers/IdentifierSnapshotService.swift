import CatalogStore
import Logging
import ServiceLifecycle
import Synchronization

/// Keeps ``IdentifierSnapshots`` current: listens for the database's notifications, rebuilds the apps they
/// name, and after any lost connection listens again and rebuilds everything, since changes may have been
/// missed meanwhile. Several server processes on one database each run one, and so stay coherent.
struct IdentifierSnapshotService: Service {
    let feed: IdentifierFeed
    let snapshots: IdentifierSnapshots
    let logger: Logger

    /// How long to wait before listening again after a failure, growing up to ``maximumBackoff``.
    static let firstBackoff: Duration = .milliseconds(100)
    static let maximumBackoff: Duration = .seconds(2)

    func run() async throws {
        let pending = PendingApps()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await rebuild(pending) }
            group.addTask { try await listen(pending) }
            try await group.next()
            group.cancelAll()
        }
    }

    /// Listens, and again after every failure, until graceful shutdown.
    private func listen(_ pending: PendingApps) async throws {
        await cancelWhenGracefulShutdown { await listenAgainAndAgain(pending) }
        pending.finish()
    }

    private func listenAgainAndAgain(_ pending: PendingApps) async {
        var backoff = Self.firstBackoff
        while !Task.isCancelled {
            let loaded = Atomic<Bool>(false)
            do {
                try await feed.listen(listening: {
                    snapshots.replaceAll(try await feed.all())
                    loaded.store(true, ordering: .relaxed)
                    logger.debug("product identifiers loaded")
                }, changed: { bundleID in
                    pending.add(bundleID)
                })
            } catch {
                if Task.isCancelled { break }
                logger.warning("listening for product changes failed; listening again",
                               metadata: ["error": "\(String(reflecting: error))"])
            }
            // A connection that worked for a while is retried at once; one that keeps failing, less often.
            backoff = loaded.load(ordering: .relaxed) ? Self.firstBackoff : min(backoff * 2, Self.maximumBackoff)
            try? await Task.sleep(for: backoff)
        }
    }

    /// Rebuilds the apps notified, a burst of notifications for one app at most twice.
    private func rebuild(_ pending: PendingApps) async {
        for await _ in pending.signals {
            for bundleID in pending.take() {
                do {
                    snapshots.replace(bundleID, with: try await feed.app(bundleID))
                } catch {
                    // The listener fails too and rebuilds everything once it listens again.
                    logger.warning("rebuilding product identifiers failed",
                                   metadata: ["app": "\(bundleID)", "error": "\(String(reflecting: error))"])
                }
            }
        }
    }
}

/// The apps to rebuild, gathered between rebuilds so that repeated notifications coalesce.
private final class PendingApps: Sendable {
    private let apps = Mutex<Set<String>>([])
    private let continuation: AsyncStream<Void>.Continuation
    let signals: AsyncStream<Void>

    init() {
        (signals, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    func add(_ bundleID: String) {
        apps.withLock { _ = $0.insert(bundleID) }
        continuation.yield()
    }

    func take() -> Set<String> { apps.withLock { taken in defer { taken = [] }; return taken } }

    func finish() { continuation.finish() }
}
