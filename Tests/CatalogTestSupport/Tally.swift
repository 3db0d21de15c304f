import Synchronization

/// Counts of keys, added from many tasks at once: what concurrent clients saw (statuses, accepted actions).
public final class Tally<Key: Hashable & Sendable>: Sendable {
    private let storage = Mutex<[Key: Int]>([:])

    public init() {}

    /// Counts one more `key`.
    public func add(_ key: Key) { storage.withLock { $0[key, default: 0] += 1 } }

    /// Every key seen, with how many times.
    public var counts: [Key: Int] { storage.withLock { $0 } }
}
