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

        @Option(help: "csv or ndjson.")
        var format: ExportFormat = .csv

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

            let written = try await session.stream(body, format: format, to: out, noun: "events")
            if session.format == .human, let out {
                session.console.note("Exported \(written.records) events (\(ByteSize(written.bytes))) to \(out).")
            }
        }
    }
}
