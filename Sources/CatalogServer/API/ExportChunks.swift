/// A streamed export's body: a header, then one line per row, gathered into chunks of about 64 KiB so that each
/// write to the connection carries many rows. ``HistoryExport`` and ``TransactionExport`` say what a line is.
struct ExportChunks<Rows: AsyncSequence & Sendable>: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>
    let rows: Rows
    let header: String
    let line: @Sendable (Rows.Element) -> String

    struct AsyncIterator: AsyncIteratorProtocol {
        var rows: Rows.AsyncIterator
        var header: String?
        let line: @Sendable (Rows.Element) -> String
        var finished = false

        mutating func next() async throws -> ArraySlice<UInt8>? {
            guard !finished else { return nil }
            var chunk: [UInt8] = []
            chunk.reserveCapacity(1 << 16)
            if let header {
                chunk.append(contentsOf: header.utf8)
                self.header = nil
            }
            while chunk.count < (1 << 16) {
                guard let row = try await rows.next() else {
                    finished = true
                    break
                }
                chunk.append(contentsOf: line(row).utf8)
            }
            return chunk.isEmpty ? nil : chunk[...]
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(rows: rows.makeAsyncIterator(), header: header, line: line)
    }
}
