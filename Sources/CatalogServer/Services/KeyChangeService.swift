import CatalogStore
import ServiceLifecycle

/// Keeps ``KeyCache`` honest: forgets the cached keys at every notice of a changed key from ``CatalogChanges``;
/// while the feed does not listen (before it starts, after a lost connection) the cache keeps nothing. Several
/// server processes on one database each run one, so a key revoked through any of them is refused by all as
/// soon as the revocation is committed.
struct KeyChangeService: Service {
    let changes: CatalogChanges
    let cache: KeyCache

    func run() async {
        await cancelWhenGracefulShutdown {
            await changes.withSubscription(to: .keys) { notices in
                for await notice in notices {
                    switch notice {
                    case .resumed: cache.setListening(true)
                    case .interrupted: cache.setListening(false)
                    case .key: cache.forgetAll()
                    case .identifiers, .history: break
                    }
                }
            }
        }
        cache.setListening(false)
    }
}
