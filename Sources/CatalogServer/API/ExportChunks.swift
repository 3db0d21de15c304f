import NIOPosix

/// A streamed export's body: a header, then one line per row, gathered into chunks of about 64 KiB so that each
/// write to the connection carries many rows. ``HistoryExport`` and ``TransactionExport`` say what a line is.
///
/// The lines are written on the blocking thread pool, ``rowsPerHop`` rows at a time, not on the event loop the
/// request runs on: rows already received are read without suspending, so an export of many thousand rows
/// would otherwise keep every other connection of that loop waiting (docs/decisions.md).
struct ExportChunks<Rows: AsyncSequence & Sendable>: AsyncSequence, Sendable where Rows.Element: Sendable {
    typealias Element = ArraySlice<UInt8>
    let rows: Rows
    let header: String
    let line: @Sendable (Rows.Element) -> String

    static var chunkSize: Int { 1 << 16 }
    static var rowsPerHop: Int { 128 }

    struct AsyncIterator: AsyncIteratorProtocol {
        var rows: Rows.AsyncIterator
        var header: String?
        let line: @Sendable (Rows.Element) -> String
        var finished = false

        mutating func next() async throws -> ArraySlice<UInt8>? {
            guard !finished else { return nil }
            var chunk: [UInt8] = []
            chunk.reserveCapacity(ExportChunks.chunkSize)
            if let header {
                chunk.append(contentsOf: header.utf8)
                self.header = nil
            }
            while chunk.count < ExportChunks.chunkSize, !finished {
                var batch: [Rows.Element] = []
                batch.reserveCapacity(ExportChunks.rowsPerHop)
                while batch.count < ExportChunks.rowsPerHop {
                    guard let row = try await rows.next() else {
                        finished = true
                        break
                    }
                    batch.append(row)
                }
                guard !batch.isEmpty else { break }
                let line = line
                chunk += try await NIOThreadPool.singleton.runIfActive { [batch] in
                    batch.reduce(into: [UInt8]()) { text, row in text.append(contentsOf: line(row).utf8) }
                }
            }
            return chunk.isEmpty ? nil : chunk[...]
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(rows: rows.makeAsyncIterator(), header: header, line: line)
    }
}
