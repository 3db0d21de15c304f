import CatalogCore
import Crypto
import Foundation
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
    public func verify(chain: String) async throws -> ChainVerification {
        try await database.translatingErrors {
            let head = try await database.execute(
                "SELECT last_seq, encode(last_hash, 'hex') FROM history_chains WHERE chain = \(chain)")
            let (headSequence, headHash) = try head.first?.decode((Int64, String).self) ?? (Int64(0), HistoryEvent.genesisHash)
            let rows = try await database.query("""
                SELECT \(unescaped: Self.columns) FROM history_events
                WHERE chain = \(chain) AND chain_seq <= \(headSequence) ORDER BY chain_seq
                """)
            var expectedPrevious = HistoryEvent.genesisHash
            var count = 0
            for try await row in rows {
                let event = try Self.event(from: row)
                count += 1
                func broken(_ problem: ChainVerification.BrokenLink.Problem, expected: String, found: String)
                    -> ChainVerification
                {
                    ChainVerification(chain: chain, events: count, lastHash: nil, firstBrokenLink: .init(
                        sequence: event.sequence, chainSequence: event.chainSequence, problem: problem,
                        expectedHash: expected, foundHash: found))
                }
                if event.chainSequence != Int64(count) {
                    return broken(.missingEvent, expected: expectedPrevious, found: event.previousHash)
                }
                if event.previousHash != expectedPrevious {
                    return broken(.previousHashMismatch, expected: expectedPrevious, found: event.previousHash)
                }
                let recomputed = Self.hash(of: event)
                if recomputed != event.hash {
                    return broken(.hashMismatch, expected: recomputed, found: event.hash)
                }
                expectedPrevious = event.hash
                // Rows already received are read without suspending, so a chain of many events would otherwise
                // be verified in one stretch on one thread. The server runs its tasks on its event loops, and
                // every connection of that loop (requests, PostgreSQL, webhook deliveries) would wait for it.
                if count % Self.eventsBetweenYields == 0 { await Task.yield() }
            }
            // Events removed from the end leave the head pointing past the last one.
            if headSequence != Int64(count) || headHash != expectedPrevious {
                return ChainVerification(chain: chain, events: count, lastHash: nil, firstBrokenLink: .init(
                    sequence: 0, chainSequence: Int64(count + 1), problem: .missingEvent, expectedHash: headHash,
                    foundHash: expectedPrevious))
            }
            return ChainVerification(chain: chain, events: count, lastHash: count > 0 ? expectedPrevious : nil,
                                     firstBrokenLink: nil)
        }
    }

    /// How many events are verified between two chances for the thread's other work (about a millisecond).
    static let eventsBetweenYields = 64

    /// SHA-256 of the previous hash's bytes followed by the canonical JSON, in hex.
    static func hash(of event: HistoryEvent) -> String {
        var hasher = SHA256()
        hasher.update(data: Data(hexadecimal: event.previousHash))
        hasher.update(data: Data(event.canonicalJSON.utf8))
        return hasher.finalize().lowercaseHexadecimal
    }
}

extension Data {
    /// Bytes from lowercase hexadecimal text (the history's hashes).
    init(hexadecimal text: String) {
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let high = iterator.next(), let low = iterator.next() {
            func value(_ digit: UInt8) -> UInt8 { digit >= 97 ? digit - 87 : digit >= 65 ? digit - 55 : digit - 48 }
            bytes.append(value(high) << 4 | value(low))
        }
        self.init(bytes)
    }
}
