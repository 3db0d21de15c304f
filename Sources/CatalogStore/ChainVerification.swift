import CatalogCore
import Crypto
import Foundation
import NIOPosix
import PostgresNIO

/// The outcome of recomputing one hash chain.
public struct ChainVerification: Sendable, Hashable {
    /// The first link that does not hold.
    public struct BrokenLink: Sendable, Hashable {
        public enum Problem: String, Sendable {
            /// The event's fields no longer hash to its stored hash: the event was altered.
            case hashMismatch = "hash-mismatch"
            /// The event does not name its predecessor's hash: an event before it was altered or removed.
            case previousHashMismatch = "previous-hash-mismatch"
            /// A position of the chain is empty: an event was removed.
            case missingEvent = "missing-event"
        }

        public let sequence: Int64
        public let chainSequence: Int64
        public let problem: Problem
        public let expectedHash: String
        public let foundHash: String
    }

    /// The app's bundle id, or "" for events outside any app.
    public let chain: String
    public let events: Int
    public let lastHash: String?
    public let firstBrokenLink: BrokenLink?

    public var verified: Bool { firstBrokenLink == nil }
}

extension HistoryRepository {
    /// The chains that exist, each an app's bundle id or "" for events outside any app.
    public func chains() async throws -> [String] {
        try await database.execute("SELECT chain FROM history_chains ORDER BY chain").map { try $0.decode(String.self) }
    }

    /// Recomputes `chain` from its events, in chain order, as they stream from the database: each event's
    /// hash from its canonical JSON (in Swift, independently of the database's own function), each link to
    /// its predecessor, and the chain head against the last event. Stops at the first broken link.
    ///
    /// The head is read first and the chain verified up to it: an event and the head's move commit together,
    /// so every event up to that head is there to read, and writers appending meanwhile change nothing.
    ///
    /// The rows are decoded and hashed on the blocking thread pool, `eventsPerCheck` events at a time, not on the
    /// event loops that run the server's tasks: a chain of many events would otherwise keep every connection of a
    /// loop (requests, PostgreSQL, webhook deliveries) waiting for seconds.
    public func verify(chain: String, eventsPerCheck: Int = 256) async throws -> ChainVerification {
        try await database.translatingErrors {
            let head = try await database.execute(
                "SELECT last_seq, encode(last_hash, 'hex') FROM history_chains WHERE chain = \(chain)")
            let (headSequence, headHash) = try head.first?.decode((Int64, String).self) ?? (Int64(0), HistoryEvent.genesisHash)
            let rows = try await database.query("""
                SELECT \(unescaped: Self.columns) FROM history_events
                WHERE chain = \(chain) AND chain_seq <= \(headSequence) ORDER BY chain_seq
                """)
            let eventsPerCheck = max(1, eventsPerCheck)
            var links = ChainLinks(chain: chain)
            var batch: [PostgresRow] = []
            batch.reserveCapacity(eventsPerCheck)
            for try await row in rows {
                batch.append(row)
                if batch.count == eventsPerCheck {
                    if let broken = try await links.check(batch) { return broken }
                    batch.removeAll(keepingCapacity: true)
                }
            }
            if let broken = try await links.check(batch) { return broken }
            // Events removed from the end leave the head pointing past the last one.
            if headSequence != Int64(links.count) || headHash != links.lastHash {
                return ChainVerification(chain: chain, events: links.count, lastHash: nil, firstBrokenLink: .init(
                    sequence: 0, chainSequence: Int64(links.count + 1), problem: .missingEvent, expectedHash: headHash,
                    foundHash: links.lastHash))
            }
            return ChainVerification(chain: chain, events: links.count,
                                     lastHash: links.count > 0 ? links.lastHash : nil, firstBrokenLink: nil)
        }
    }

    /// SHA-256 of the previous hash's bytes followed by the canonical JSON, in hex.
    static func hash(of event: HistoryEvent) -> String {
        var hasher = SHA256()
        hasher.update(data: [UInt8](hexadecimal: event.previousHash))
        hasher.update(data: event.canonicalJSONUTF8())
        return hasher.finalize().lowercaseHexadecimal
    }
}

/// How far a chain's verification has come: the events checked, and the hash the next must name.
private struct ChainLinks {
    let chain: String
    private(set) var count = 0
    private(set) var lastHash = HistoryEvent.genesisHash

    init(chain: String) {
        self.chain = chain
    }

    /// Decodes and checks `rows`, the next events of the chain, on the blocking thread pool; answers the first
    /// broken link.
    mutating func check(_ rows: [PostgresRow]) async throws -> ChainVerification? {
        guard !rows.isEmpty else { return nil }
        let start = self
        let (checked, broken) = try await NIOThreadPool.singleton.runIfActive {
            var links = start
            let broken = links.link(try rows.map(HistoryRepository.event(from:)))
            return (links, broken)
        }
        self = checked
        return broken
    }

    /// Links `events` one by one after the last one checked; stops at the first that does not hold.
    private mutating func link(_ events: [HistoryEvent]) -> ChainVerification? {
        for event in events {
            count += 1
            func broken(_ problem: ChainVerification.BrokenLink.Problem, expected: String, found: String)
                -> ChainVerification
            {
                ChainVerification(chain: chain, events: count, lastHash: nil, firstBrokenLink: .init(
                    sequence: event.sequence, chainSequence: event.chainSequence, problem: problem,
                    expectedHash: expected, foundHash: found))
            }
            if event.chainSequence != Int64(count) {
                return broken(.missingEvent, expected: lastHash, found: event.previousHash)
            }
            if event.previousHash != lastHash {
                return broken(.previousHashMismatch, expected: lastHash, found: event.previousHash)
            }
            let recomputed = HistoryRepository.hash(of: event)
            if recomputed != event.hash {
                return broken(.hashMismatch, expected: recomputed, found: event.hash)
            }
            lastHash = event.hash
        }
        return nil
    }
}
