import Foundation
import OpenAPIRuntime
import Synchronization

/// A file sent as a request body, handed to the connection in chunks of 256 KiB as it asks for them and
/// counted, so that a command can show the upload's progress (``ImportProgress``).
final class CountedUpload: Sendable {
    let file: Data
    private let state = Mutex<(sent: Int, finished: Bool)>((0, false))

    init(_ file: Data) {
        self.file = file
    }

    /// Bytes of the file handed to the connection so far.
    var sent: Int { state.withLock { $0.sent } }

    /// Whether the whole file has been handed to the connection.
    var isFinished: Bool { state.withLock { $0.finished } }

    /// The file as a request body of known length, to be sent once.
    func body() -> HTTPBody {
        HTTPBody(Chunks(upload: self), length: .known(Int64(file.count)), iterationBehavior: .single)
    }

    fileprivate func didSend(_ count: Int, finished: Bool) {
        state.withLock {
            $0.sent += count
            if finished { $0.finished = true }
        }
    }
}

/// The chunks of an upload's file, each counted as the connection takes it.
private struct Chunks: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>
    let upload: CountedUpload

    struct AsyncIterator: AsyncIteratorProtocol {
        let upload: CountedUpload
        var offset = 0

        mutating func next() async throws -> ArraySlice<UInt8>? {
            let file = upload.file
            guard offset < file.count else { return nil }
            let end = Swift.min(offset + 256 * 1024, file.count)
            let chunk = ArraySlice(file[file.startIndex + offset..<file.startIndex + end])
            offset = end
            upload.didSend(chunk.count, finished: end == file.count)
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(upload: upload) }
}
