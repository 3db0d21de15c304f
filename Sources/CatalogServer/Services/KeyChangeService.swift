import CatalogStore
import Logging
import ServiceLifecycle

/// Keeps ``KeyCache`` honest: listens for the database's notice of a changed key and forgets the cached keys
/// at each; while it is not listening (before it starts, after a lost connection) the cache keeps nothing.
/// Several server processes on one database each run one, so a key revoked through any of them is refused by
/// all as soon as the revocation is committed.
struct KeyChangeService: Service {
    let keys: KeyRepository
    let cache: KeyCache
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await Relistening.run("API key changes", logger: logger) { listened in
                defer { cache.setListening(false) }
                try await keys.listen(listening: {
                    cache.setListening(true)
                    listened()
                }, changed: { _ in
                    cache.forgetAll()
                })
            }
        }
    }
}
