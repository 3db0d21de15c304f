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
        await cancelWhenGracefulShutdown {
            await Relistening.run("product changes", logger: logger) { listened in
                try await feed.listen(listening: {
                    snapshots.replaceAll(try await feed.all())
                    listened()
                    logger.debug("product identifiers loaded")
                }, changed: { bundleID in
                    pending.add(bundleID)
                })
            }
        }
        pending.finish()
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
