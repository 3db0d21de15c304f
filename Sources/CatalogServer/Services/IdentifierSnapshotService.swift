import CatalogStore
import Logging
import ServiceLifecycle

/// Keeps ``IdentifierSnapshots`` current from ``CatalogChanges``: rebuilds the apps it names, and everything when
/// the feed (re)starts listening, since changes may have been missed meanwhile. Several server processes on one
/// database each run one, and so stay coherent. Notices that come while it rebuilds wait, each app once, so a
/// burst of changes of one app rebuilds it at most twice.
struct IdentifierSnapshotService: Service {
    let changes: CatalogChanges
    let feed: IdentifierFeed
    let snapshots: IdentifierSnapshots
    let logger: Logger

    static let firstBackoff: Duration = .milliseconds(100)
    static let maximumBackoff: Duration = .seconds(2)

    func run() async {
        await cancelWhenGracefulShutdown {
            await changes.withSubscription(to: .identifiers) { notices in
                for await notice in notices {
                    switch notice {
                    case .resumed: await rebuildAll()
                    case .identifiers(let bundleID): await rebuild(bundleID)
                    case .interrupted, .key, .history: break
                    }
                }
            }
        }
    }

    /// Loads every app's list, again until it succeeds (or the service stops).
    private func rebuildAll() async {
        var backoff = Self.firstBackoff
        while !Task.isCancelled {
            do {
                snapshots.replaceAll(try await feed.all())
                logger.debug("product identifiers loaded")
                return
            } catch {
                logger.warning("loading product identifiers failed; loading again",
                               metadata: ["error": "\(String(reflecting: error))"])
            }
            try? await Task.sleep(for: backoff)
            backoff = min(backoff * 2, Self.maximumBackoff)
        }
    }

    /// Rebuilds one app's list; if that fails, every list, since this change is not notified again.
    private func rebuild(_ bundleID: String) async {
        do {
            snapshots.replace(bundleID, with: try await feed.app(bundleID))
        } catch {
            logger.warning("rebuilding product identifiers failed; loading them all",
                           metadata: ["app": "\(bundleID)", "error": "\(String(reflecting: error))"])
            await rebuildAll()
        }
    }
}
