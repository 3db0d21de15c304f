@testable import CatalogServer
import CatalogCore
import Foundation
import Testing

/// What an export writes, without a server: the history's NDJSON line and the chunks of a streamed body.
@Suite("Export lines and chunks")
struct ExportLineTests {
    @Test("an NDJSON line is the canonical JSON with the two hashes added, even when changes hold the same keys")
    func ndjsonLineWithNestedKeys() throws {
        let changes = #"[{"field":"offer","new":{"kind":"trial","productId":"gold"},"old":null}]"#
        let event = HistoryEvent(
            sequence: 7, chainSequence: 3, at: Date(timeIntervalSince1970: 0), canonicalAt: "1970-01-01T00:00:00.000000Z",
            chain: "com.export.lines", changesJSON: changes,
            record: HistoryRecord(kind: .edited, bundleID: "com.export.lines", productID: "gold", productVersion: 2,
                                  actor: Actor(keyID: nil, name: "tests", role: .developer)),
            previousHash: String(repeating: "a", count: 64), hash: String(repeating: "b", count: 64))
        let line = HistoryExport.ndjsonLine(event)
        #expect(line.hasSuffix("}\n") && line.filter { $0 == "\n" }.count == 1)
        var object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object.removeValue(forKey: "hash") as? String == event.hash)
        #expect(object.removeValue(forKey: "previousHash") as? String == event.previousHash)
        let canonical = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        #expect(String(decoding: canonical, as: UTF8.self) == event.canonicalJSON)
        // The keys inside the change are the change's own, untouched.
        #expect(event.canonicalJSON.contains(#"{"kind":"trial","productId":"gold"}"#))
        #expect(line.contains(#"{"kind":"trial","productId":"gold"}"#))
    }

    @Test("a CSV cell is quoted when it holds a separator, a quote or a line break, CRLF included", arguments: [
        ("plain", "plain"), ("", ""), ("a,b", "\"a,b\""), ("say \"hi\"", "\"say \"\"hi\"\"\""),
        ("one\ntwo", "\"one\ntwo\""), ("one\r\ntwo", "\"one\r\ntwo\""), ("ünï,cödé", "\"ünï,cödé\""),
        ("=SUM(A1)", "'=SUM(A1)"), ("-1,5", "\"'-1,5\""),
    ])
    func csvCell(value: String, cell: String) {
        #expect(HistoryExport.csvCell(value) == cell)
    }

    @Test("chunks: the header first, every line once and in order, about 64 KiB each", arguments: [0, 1, 127, 128, 129, 3_000])
    func chunks(rows: Int) async throws {
        let lines = (0..<rows).map { "row \($0) " + String(repeating: "x", count: 90) + "\n" }
        let body = ExportChunks(rows: Numbers(count: rows), header: "header\n", line: { lines[$0] })
        var chunks: [ArraySlice<UInt8>] = []
        for try await chunk in body { chunks.append(chunk) }
        #expect(String(decoding: chunks.joined(), as: UTF8.self) == "header\n" + lines.joined())
        #expect(chunks.dropLast().allSatisfy { $0.count >= ExportChunks<Numbers>.chunkSize })
        #expect(chunks.allSatisfy { $0.count < 2 * ExportChunks<Numbers>.chunkSize })
    }
}

/// 0, 1, ... `count` - 1, as rows of an export.
private struct Numbers: AsyncSequence, Sendable {
    let count: Int

    struct AsyncIterator: AsyncIteratorProtocol {
        var next = 0
        let count: Int

        mutating func next() async -> Int? {
            guard next < count else { return nil }
            defer { next += 1 }
            return next
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(count: count) }
}
