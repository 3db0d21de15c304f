import Foundation
import HTTPTypes
import OpenAPIRuntime
import Synchronization

/// The bytes of a StoreKit configuration file on their way to the server (an import) or from it (an export).
///
/// The generated client would encode an import's body from, and decode an export's body into, untyped JSON
/// containers: that costs seconds for a file of 10,000 products and loses what the format cares about (number
/// forms, Xcode's layout, byte for byte). So the file passes by the generated layer, as it does on the
/// server: a command sets ``current`` around its call, and ``StoreKitFileMiddleware`` sends the file as the
/// request body, or keeps the answer's bytes and hands the generated layer an empty object.
final class StoreKitTransfer: Sendable {
    /// An import's file, sent in chunks so that ``sent`` can tell the upload's progress.
    let upload: Data?
    private let state = Mutex<State>(State())

    private struct State {
        var sent = 0
        var uploaded = false
        var download: (body: Data, skipped: String?)?
    }

    init(upload: Data? = nil) {
        self.upload = upload
    }

    /// Bytes of the file handed to the connection so far.
    var sent: Int { state.withLock { $0.sent } }

    /// Whether the whole file has been handed to the connection.
    var isUploaded: Bool { state.withLock { $0.uploaded } }

    /// An export's file as the server sent it, and its `X-Skipped-Products` header.
    var download: (body: Data, skipped: String?)? { state.withLock { $0.download } }

    /// The file's bytes as a request body, counted as the connection takes them.
    func requestBody() -> HTTPBody? {
        guard let upload else { return nil }
        return HTTPBody(Chunks(file: upload, transfer: self), length: .known(Int64(upload.count)), iterationBehavior: .single)
    }

    fileprivate func didSend(_ count: Int, finished: Bool) {
        state.withLock {
            $0.sent += count
            if finished { $0.uploaded = true }
        }
    }

    fileprivate func received(_ body: Data, skipped: String?) {
        state.withLock { $0.download = (body, skipped) }
    }

    /// The transfer of the command running, if it moves a StoreKit file.
    @TaskLocal static var current: StoreKitTransfer?
}

/// A file handed over in chunks of 256 KiB as the connection asks for them.
private struct Chunks: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>
    let file: Data
    let transfer: StoreKitTransfer

    struct AsyncIterator: AsyncIteratorProtocol {
        let file: Data
        let transfer: StoreKitTransfer
        var offset = 0

        mutating func next() async throws -> ArraySlice<UInt8>? {
            guard offset < file.count else { return nil }
            let end = Swift.min(offset + 256 * 1024, file.count)
            let chunk = ArraySlice(file[file.startIndex + offset..<file.startIndex + end])
            offset = end
            transfer.didSend(chunk.count, finished: end == file.count)
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(file: file, transfer: transfer) }
}

/// Carries StoreKit files past the generated client (see ``StoreKitTransfer``), for the import and export
/// operations only.
struct StoreKitFileMiddleware: ClientMiddleware {
    static let skippedProducts = HTTPField.Name("X-Skipped-Products")!

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        guard let transfer = StoreKitTransfer.current else { return try await next(request, body, baseURL) }
        switch operationID {
        case "importStoreKit":
            var request = request
            let file = transfer.requestBody()
            if let upload = transfer.upload { request.headerFields[.contentLength] = String(upload.count) }
            return try await next(request, file ?? body, baseURL)
        case "exportStoreKit":
            let (response, responseBody) = try await next(request, body, baseURL)
            guard response.status == .ok, let responseBody else { return (response, responseBody) }
            let data = try await Data(collecting: responseBody, upTo: ResponseRecorder.maximumBody)
            transfer.received(data, skipped: response.headerFields[Self.skippedProducts])
            return (response, HTTPBody("{}"))
        default:
            return try await next(request, body, baseURL)
        }
    }
}
