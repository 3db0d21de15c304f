import CatalogCore
@testable import CatalogServer
import Foundation
import Testing

/// What the cache of authenticated keys keeps, and when it must not.
@Suite("Key cache")
struct KeyCacheTests {
    let hash: [UInt8] = Array(repeating: 7, count: 32)
    let now = Date(timeIntervalSince1970: 2_000_000_000)

    func key(expiresAt: Date? = nil) -> APIKey {
        APIKey(id: UUID(), name: "k", role: .developer, apps: nil, createdAt: now, expiresAt: expiresAt, revokedAt: nil)
    }

    @Test("nothing is kept while the notices of changed keys do not arrive")
    func notListening() throws {
        let cache = KeyCache()
        #expect(cache.ticket() == nil)
        cache.setListening(true)
        let ticket = try #require(cache.ticket())
        cache.setListening(false)
        cache.store(key(), for: hash, ticket: ticket)
        #expect(cache.key(for: hash, at: now) == nil && cache.count == 0)
    }

    @Test("a key is kept and answered until a notice of a changed key forgets it")
    func keptUntilNotice() throws {
        let cache = KeyCache()
        cache.setListening(true)
        let stored = key()
        cache.store(stored, for: hash, ticket: try #require(cache.ticket()))
        #expect(cache.key(for: hash, at: now) == stored)
        #expect(cache.key(for: Array(repeating: 8, count: 32), at: now) == nil)
        cache.forgetAll()
        #expect(cache.key(for: hash, at: now) == nil)
    }

    @Test("a key read before a notice came is not kept: it may be the key as it was before the change")
    func staleReadNotKept() throws {
        let cache = KeyCache()
        cache.setListening(true)
        let ticket = try #require(cache.ticket())
        cache.forgetAll()
        cache.store(key(), for: hash, ticket: ticket)
        #expect(cache.key(for: hash, at: now) == nil)
        // Nor one read before the listener reconnected.
        let beforeReconnect = try #require(cache.ticket())
        cache.setListening(true)
        cache.store(key(), for: hash, ticket: beforeReconnect)
        #expect(cache.count == 0)
    }

    @Test("an expired key is not answered, and is dropped")
    func expired() throws {
        let cache = KeyCache()
        cache.setListening(true)
        cache.store(key(expiresAt: now), for: hash, ticket: try #require(cache.ticket()))
        #expect(cache.key(for: hash, at: now.addingTimeInterval(-1)) != nil)
        #expect(cache.key(for: hash, at: now) == nil)
        #expect(cache.count == 0)
    }

    @Test("the cache holds at most its capacity")
    func bounded() throws {
        let cache = KeyCache()
        cache.setListening(true)
        for index in 0...KeyCache.capacity {
            let hash = withUnsafeBytes(of: index) { Array($0) }
            cache.store(key(), for: hash, ticket: try #require(cache.ticket()))
        }
        #expect(cache.count <= KeyCache.capacity)
    }
}
