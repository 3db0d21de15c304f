import CatalogCore
import CatalogStore
import Foundation
import OpenAPIRuntime

/// The history as files: CSV for spreadsheets and NDJSON for tools, streamed as the database reads them.
enum HistoryExport {
    enum Format {
        case csv, ndjson
    }

    /// The events of `events` in `format`, in chunks of about 64 KiB: the body of a streamed answer.
    static func body(_ events: ExportedEvents, format: Format) -> HTTPBody {
        let chunks = format == .csv ? ExportChunks(rows: events, header: csvHeader, line: csvLine)
            : ExportChunks(rows: events, header: "", line: ndjsonLine)
        return HTTPBody(chunks, length: .unknown, iterationBehavior: .single)
    }

    /// CSV columns, in order.
    static let csvColumns = [
        "sequence", "chain", "chainSeq", "at", "app", "productId", "productVersion", "kind", "action", "fromState",
        "toState", "actorKeyId", "actorName", "actorRole", "reason", "changes", "requestId", "previousHash", "hash",
    ]

    /// RFC 4180: UTF-8 with a byte-order mark (so that spreadsheets read it as UTF-8), a header row, CRLF.
    static let csvHeader = "\u{FEFF}" + csvColumns.joined(separator: ",") + "\r\n"

    static func csvLine(_ event: HistoryEvent) -> String {
        let record = event.record
        let cells: [String?] = [
            String(event.sequence), event.chain, String(event.chainSequence), event.canonicalAt, record.bundleID,
            record.productID, record.productVersion.map(String.init), record.kind.rawValue, record.action?.rawValue,
            record.fromState?.rawValue, record.toState?.rawValue, record.actor.keyID?.lowercaseText,
            record.actor.name, record.actor.role?.rawValue, record.reason,
            CanonicalJSON.canonical(event.changesJSON) ?? event.changesJSON, record.requestID, event.previousHash,
            event.hash,
        ]
        return cells.map { csvCell($0 ?? "") }.joined(separator: ",") + "\r\n"
    }

    /// A cell quoted when it holds a separator, a quote or a line break. A cell a spreadsheet would take for a
    /// formula (`=`, `+`, `-`, `@` first) gets a leading `'`, so that opening an export runs nothing; the
    /// NDJSON export keeps every value exactly.
    static func csvCell(_ value: String) -> String {
        var value = value
        if let first = value.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first) { value = "'" + value }
        guard value.utf8.contains(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\r")
            || $0 == UInt8(ascii: "\n") }) else { return value }
        // Byte by byte: every event's changes are quoted, and Foundation's replacingOccurrences took most of the
        // export's time.
        var quoted: [UInt8] = [UInt8(ascii: "\"")]
        quoted.reserveCapacity(value.utf8.count + 16)
        for byte in value.utf8 {
            quoted.append(byte)
            if byte == UInt8(ascii: "\"") { quoted.append(byte) }
        }
        quoted.append(UInt8(ascii: "\""))
        return String(decoding: quoted, as: UTF8.self)
    }

    /// One event per line: its canonical JSON (the text its hash covers) with `hash` and `previousHash` added
    /// in key order, so that removing those two members gives back exactly what was hashed.
    static func ndjsonLine(_ event: HistoryEvent) -> String {
        event.canonicalJSONWithHashes + "\n"
    }
}
