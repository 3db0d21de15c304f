import CatalogCore
import CatalogStore
import Crypto
import NIOCore
import Synchronization

/// The public product-identifier answer of every app, precomputed: body bytes and strong ETag, for all
/// products on sale and for each purchase type. Served from memory with no database round trip; rebuilt
/// per app when the database notifies a change (``IdentifierSnapshotService``).
final class IdentifierSnapshots: Sendable {
    /// One precomputed answer.
    struct Snapshot: Sendable {
        let body: ByteBuffer
        /// Quoted, as the header carries it.
        let eTag: String
        let identifiers: [String]
        /// The header lines after `Date` and `Server` of a 200 (and a `HEAD`), and of a 304.
        let headerLines: ByteBuffer
        let notModifiedHeaderLines: ByteBuffer

        init(body: ByteBuffer, eTag: String, identifiers: [String]) {
            self.body = body
            self.eTag = eTag
            self.identifiers = identifiers
            headerLines = IdentifierAnswer.headerLines(eTag: eTag, bodyLength: body.readableBytes)
            notModifiedHeaderLines = IdentifierAnswer.headerLines(eTag: eTag, bodyLength: nil)
        }
    }

    /// An app's answers: all products on sale, and per type.
    struct AppAnswers: Sendable {
        let all: Snapshot
        let byType: [PurchaseType: Snapshot]

        func snapshot(for type: PurchaseType?) -> Snapshot { type.flatMap { byType[$0] } ?? all }
    }

    /// The answer for an unknown app, as the peers of the benchmark answer it.
    static let appNotFound = ByteBuffer(string: #"{"error":"app not found"}"#)

    private let answers = Mutex<[String: AppAnswers]>([:])
    /// Whether a full load has happened: until then nothing is served from memory.
    private let loaded = Atomic<Bool>(false)

    var isLoaded: Bool { loaded.load(ordering: .acquiring) }

    /// How many apps have answers in memory.
    var count: Int { answers.withLock { $0.count } }

    /// The answer for `bundleID` (and `type`), or `nil` when there is no such app.
    func answer(_ bundleID: Substring, type: PurchaseType?) -> Snapshot? {
        answers.withLock { $0[String(bundleID)] }?.snapshot(for: type)
    }

    /// Replaces every app's answers (at start, and after a lost connection, when changes may have been missed).
    func replaceAll(_ lists: [String: [OnSaleProduct]]) {
        var built: [String: AppAnswers] = [:]
        built.reserveCapacity(lists.count)
        for (bundleID, products) in lists { built[bundleID] = Self.answers(bundleID, products) }
        answers.withLock { $0 = built }
        loaded.store(true, ordering: .releasing)
    }

    /// Replaces one app's answers; `nil` removes the app.
    func replace(_ bundleID: String, with products: [OnSaleProduct]?) {
        let built = products.map { Self.answers(bundleID, $0) }
        answers.withLock { $0[bundleID] = built }
    }

    private static func answers(_ bundleID: String, _ products: [OnSaleProduct]) -> AppAnswers {
        var byType: [PurchaseType: Snapshot] = [:]
        for type in PurchaseType.allCases {
            byType[type] = snapshot(bundleID, products.filter { $0.type == type }.map(\.productID))
        }
        return AppAnswers(all: snapshot(bundleID, products.map(\.productID)), byType: byType)
    }

    /// `{"bundleId":"…","productIdentifiers":[…]}`: compact, in key order, identifiers in byte order. Bundle
    /// ids and product ids are plain ASCII (their patterns hold no character JSON would escape).
    private static func snapshot(_ bundleID: String, _ identifiers: [String]) -> Snapshot {
        var text = #"{"bundleId":""# + bundleID + #"","productIdentifiers":["#
        for (index, identifier) in identifiers.enumerated() {
            if index > 0 { text += "," }
            text += "\"" + identifier + "\""
        }
        text += "]}"
        let digest = SHA256.hash(data: Array(text.utf8))
        let eTag = "\"" + digest.prefix(16).lowercaseHexadecimal + "\""
        return Snapshot(body: ByteBuffer(string: text), eTag: eTag, identifiers: identifiers)
    }
}
