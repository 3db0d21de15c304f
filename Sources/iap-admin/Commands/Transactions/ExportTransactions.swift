import ArgumentParser
import CatalogAPI
import OpenAPIRuntime

extension Transactions {
    /// `transactions export`: every matching transaction, streamed by the server as CSV or NDJSON.
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Export every matching transaction of the ledger as CSV or NDJSON, to a file or stdout.",
            discussion: """
                The server streams the export (no paging, flat memory on both sides): CSV is RFC 4180 (UTF-8 with \
                a byte-order mark, a header row, CRLF), NDJSON one transaction per line as `transactions list \
                --json` has them. Oldest purchase first unless --order newest. With --out, the file appears only \
                once the export is complete; a progress count shows on a terminal.

                Examples:
                  admin-cli transactions export --format csv --out ledger-2026.csv --environment Production \\
                    --since 2026-01-01 --until 2027-01-01
                  admin-cli transactions export --format ndjson --app com.example.game | jq -c 'select(.revocationDate)'
                """)

        @Option(help: "csv or ndjson.")
        var format: ExportFormat = .csv

        @Option(help: ArgumentHelp("The file to write (default: stdout).", valueName: "path"))
        var out: String?

        @Option(help: ArgumentHelp("The app (default: $IAP_APP or the profile's app).", valueName: "bundle-id"))
        var app: String?

        @OptionGroup(title: "Filters")
        var filters: TransactionFilters

        @Option(help: "oldest (the default) or newest purchase first.")
        var order: Operations.ListTransactions.Input.Query.OrderPayload = .oldest

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let session = try Session(global)
            let app = try session.app(app)
            let accept: Operations.ListTransactions.AcceptableContentType = format == .csv ? .csv : .applicationXNdjson
            let body = try await session.answer({
                try await $0.listTransactions(path: .init(bundleId: app), query: filters.query(order: order),
                                              headers: .init(accept: [.init(contentType: accept)]))
            }) { output -> HTTPBody in
                switch try output.ok.body {
                case .csv(let stream), .applicationXNdjson(let stream): return stream
                case .json: throw CommandFailure(.serverError, "the server answered JSON where an export was asked for")
                }
            }
            let written = try await session.stream(body, format: format, to: out, noun: "transactions")
            if session.format == .human, let out {
                session.console.note("Exported \(written.records) transactions (\(ByteSize(written.bytes))) to \(out).")
            }
        }
    }
}
