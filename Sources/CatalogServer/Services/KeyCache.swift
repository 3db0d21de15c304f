import CatalogCore
import Foundation
import Synchronization

/// The API keys this server has authenticated, by the hash of their token, so that a request need not read
/// its key from the database. Keys are kept only while the change feed listens for the database's notice of a
/// changed key (``KeyChangeService``), and all are forgotten at each notice: revocations are rare, and a key's
/// next request reads it again. Unknown tokens are never kept.
///
/// A key read from the database just as a notice arrives may be the old one: it is kept only if no notice
/// came between the moment it was asked for (its ``Ticket``) and the moment it is stored.
final class KeyCache: Sendable {
    /// Keys kept at most; beyond, the cache starts over. Keys are few; this bounds what a flood could cost.
    static let capacity = 10_000

    /// When a key was asked for of the database, in notices of changed keys.
    struct Ticket {
        fileprivate let generation: UInt64
    }

    private struct State {
        var listening = false
        var generation: UInt64 = 0
        var keys: [[UInt8]: APIKey] = [:]
    }

    private let state = Mutex(State())

    /// The key of the token with `hash`, if it is kept and has not expired by `now`.
    func key(for hash: [UInt8], at now: Date) -> APIKey? {
        state.withLock { state in
            guard let key = state.keys[hash] else { return nil }
            if let expiresAt = key.expiresAt, expiresAt <= now {
                state.keys[hash] = nil
                return nil
            }
            return key
        }
    }

    /// A ticket to store what is about to be read, or `nil` when nothing may be kept (not listening).
    func ticket() -> Ticket? {
        state.withLock { $0.listening ? Ticket(generation: $0.generation) : nil }
    }

    /// Keeps `key` if no key changed since `ticket` was taken.
    func store(_ key: APIKey, for hash: [UInt8], ticket: Ticket) {
        state.withLock { state in
            guard state.listening, state.generation == ticket.generation else { return }
            if state.keys.count >= Self.capacity { state.keys.removeAll() }
            state.keys[hash] = key
        }
    }

    /// Forgets every key: one was changed (revoked, altered or deleted).
    func forgetAll() {
        state.withLock { state in
            state.generation &+= 1
            state.keys.removeAll()
        }
    }

    /// Whether the notices of changed keys arrive now; while they do not, nothing is kept.
    func setListening(_ listening: Bool) {
        state.withLock { state in
            state.listening = listening
            state.generation &+= 1
            state.keys.removeAll()
        }
    }

    /// How many keys are kept, for tests.
    var count: Int { state.withLock { $0.keys.count } }
}
