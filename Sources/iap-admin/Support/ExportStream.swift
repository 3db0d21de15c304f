import ArgumentParser
import Foundation
import OpenAPIRuntime

/// The formats the server streams exports in (`history export`, `transactions export`).
enum ExportFormat: String, CaseIterable, ExpressibleByArgument, Sendable {
    case csv, ndjson
}

extension Session {
    /// Writes an export the server streams into `out` (a file that appears under its name only once the export
    /// is complete) or stdout, chunk by chunk as it arrives (flat memory however large), with a count of
    /// `noun` and bytes on a terminal. A stream cut off leaves no file behind. Answers what was written.
    func stream(_ body: HTTPBody, format: ExportFormat, to out: String?, noun: String)
        async throws -> (records: Int, bytes: Int)
    {
        let destination = try ExportDestination(path: out)
        var counter = RecordCounter(format: format)
        var progress = ProgressCounter(console: console)
        do {
            for try await chunk in body {
                try destination.write(Data(chunk), console: console)
                counter.count(chunk)
                progress.update(counter.records, noun, bytes: counter.bytes)
            }
        } catch let failure as CommandFailure {
            progress.finish()
            destination.abandon()
            throw failure
        } catch {
            progress.finish()
            destination.abandon()
            throw CommandFailure(.unavailable, "the export was cut off after \(ByteSize(counter.bytes)): \(error.localizedDescription)",
                                 hint: out == nil ? "run it again" : "nothing was kept; run it again")
        }
        progress.finish()
        try destination.complete()
        return (counter.records, counter.bytes)
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

/// Counts the records of an export as it streams by: NDJSON lines, or CSV records (a newline inside a quoted
/// field does not end a record; the header row is not a record).
private struct RecordCounter {
    let format: ExportFormat
    private(set) var bytes = 0
    private var lines = 0
    private var inQuotes = false

    init(format: ExportFormat) {
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
