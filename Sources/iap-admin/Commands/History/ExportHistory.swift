import ArgumentParser
import CatalogAPI
import Foundation
import OpenAPIRuntime

extension History {
    /// `history export`: every matching event, streamed by the server as CSV or NDJSON, into a file or stdout.
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Export every matching history event as CSV or NDJSON, to a file or stdout.",
            discussion: """
                The server streams the export (no paging, flat memory on both sides): CSV is RFC 4180 (UTF-8 with \
                a byte-order mark, a header row, CRLF) with `changes` as JSON; NDJSON is one event per line, `at` to \
                the microsecond as the hash chain covers it. Oldest first unless --order newest. With --out, the \
                file appears only once the export is complete; a progress count shows on a terminal.

                Examples:
                  admin-cli history export --format csv --out history-2026.csv --since 2026-01-01 --until 2027-01-01
                  admin-cli history export --format ndjson --app com.example.game | jq -c 'select(.action == "reject")'
                """)

        enum Format: String, CaseIterable, ExpressibleByArgument {
            case csv, ndjson
        }

        @Option(help: "csv or ndjson.")
        var format: Format = .csv

        @Option(help: ArgumentHelp("The file to write (default: stdout).", valueName: "path"))
        var out: String?

        @Option(name: .customLong("product"), help: ArgumentHelp("Only this product's events (its app from --app, $IAP_APP or the profile).", valueName: "product-id"))
        var productID: String?

        @OptionGroup(title: "Filters")
        var filters: HistoryFilters

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let session = try Session(global)
            let app = productID == nil ? filters.app : try session.app(filters.app)
            let query = filters.query(app: app, productID: productID, order: .oldest)
            let accept: Operations.ListHistory.AcceptableContentType = format == .csv ? .csv : .applicationXNdjson
            let body = try await session.answer({
                try await $0.listHistory(query: query, headers: .init(accept: [.init(contentType: accept)]))
            }) { output -> HTTPBody in
                switch try output.ok.body {
                case .csv(let stream), .applicationXNdjson(let stream): return stream
                case .json: throw CommandFailure(.serverError, "the server answered JSON where an export was asked for")
                }
            }

            let destination = try ExportDestination(path: out)
            var counter = RecordCounter(format: format)
            var progress = ProgressCounter(console: session.console)
            do {
                for try await chunk in body {
                    try destination.write(Data(chunk), console: session.console)
                    counter.count(chunk)
                    progress.update(counter.records, "events", bytes: counter.bytes)
                }
            } catch let failure as CommandFailure {
                progress.finish()
                destination.abandon()
                throw failure
            } catch {
                progress.finish()
                destination.abandon()
                throw CommandFailure(.unavailable, "the export was cut off after \(ByteSize(counter.bytes)): \(error.localizedDescription)",
                                     hint: "nothing was kept; run it again")
            }
            progress.finish()
            try destination.complete()
            if session.format == .human, let out {
                session.console.note("Exported \(counter.records) events (\(ByteSize(counter.bytes))) to \(out).")
            }
        }
    }
}

/// Where an export goes: stdout, or a file that appears under its name only once the export is complete.
private struct ExportDestination {
    let path: String?
    private let temporary: URL?
    private let handle: FileHandle?

    init(path: String?) throws {
        self.path = path
        guard let path, path != "-" else {
            (temporary, handle) = (nil, nil)
            return
        }
        let target = URL(fileURLWithPath: path)
        let temporary = target.deletingLastPathComponent().appendingPathComponent(".\(target.lastPathComponent).partial")
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil),
              let handle = try? FileHandle(forWritingTo: temporary)
        else {
            throw CommandFailure(.badInput, "cannot write \(path): check that its folder exists and is writable")
        }
        (self.temporary, self.handle) = (temporary, handle)
    }

    func write(_ data: Data, console: Console) throws {
        guard let handle else { return console.write(data) }
        do {
            try handle.write(contentsOf: data)
        } catch {
            throw CommandFailure(.badInput, "cannot write \(path ?? "the export"): \(error.localizedDescription)")
        }
    }

    func complete() throws {
        guard let handle, let temporary, let path else { return }
        do {
            try handle.close()
            if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
            try FileManager.default.moveItem(at: temporary, to: URL(fileURLWithPath: path))
        } catch {
            abandon()
            throw CommandFailure(.badInput, "cannot write \(path): \(error.localizedDescription)")
        }
    }

    func abandon() {
        try? handle?.close()
        if let temporary { try? FileManager.default.removeItem(at: temporary) }
    }
}

/// Counts the events of an export as it streams by: NDJSON lines, or CSV records (a newline inside a quoted
/// field does not end a record; the header row is not an event).
private struct RecordCounter {
    let format: History.Export.Format
    private(set) var bytes = 0
    private var lines = 0
    private var inQuotes = false

    init(format: History.Export.Format) {
        self.format = format
    }

    var records: Int { format == .csv ? max(0, lines - 1) : lines }

    mutating func count(_ chunk: ArraySlice<UInt8>) {
        bytes += chunk.count
        for byte in chunk {
            if format == .csv, byte == UInt8(ascii: "\"") {
                inQuotes.toggle()
            } else if byte == UInt8(ascii: "\n"), !inQuotes {
                lines += 1
            }
        }
    }
}
