import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// A test's client of the event stream (`GET /v1/events`, `Accept: text/event-stream`) over a real connection:
/// the frames as they arrive, read only when asked for.
public struct EventStreamReader {
    /// One frame: an event (`id`, `event`, `data`) or a comment (a heartbeat).
    public struct Frame: Sendable {
        public var id: Int64?
        public var kind: String?
        public var data: String?
        public var comment: String?
    }

    public let status: Int
    public let contentType: String?
    private var body: HTTPClientResponse.Body.AsyncIterator
    private var pending = ""

    /// A client without a read timeout: a stream a test does not read for a while is not a dead one. Never shut
    /// down, as `HTTPClient.shared`.
    private static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: .seconds(10), read: nil)
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    /// Opens the stream at `path` on the server at `port`, with `key` and `headers`.
    public static func open(port: Int, _ path: String, key: String, headers: [(String, String)] = []) async throws
        -> EventStreamReader
    {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.headers.add(name: "Authorization", value: "Bearer \(key)")
        request.headers.add(name: "Accept", value: "text/event-stream")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await client.execute(request, timeout: .seconds(120))
        return EventStreamReader(status: Int(response.status.code), contentType: response.headers.first(name: "Content-Type"),
                                 body: response.body.makeAsyncIterator())
    }

    private init(status: Int, contentType: String?, body: HTTPClientResponse.Body.AsyncIterator) {
        self.status = status
        self.contentType = contentType
        self.body = body
    }

    /// The next frame, waiting at most `limit`; `nil` when the stream ended.
    public mutating func next(within limit: Duration = .seconds(30)) async throws -> Frame? {
        let deadline = ContinuousClock.now + limit
        while true {
            if let end = pending.range(of: "\n\n") {
                let block = pending[..<end.lowerBound]
                pending = String(pending[end.upperBound...])
                var frame = Frame()
                for line in block.split(separator: "\n") {
                    if line.hasPrefix(":") { frame.comment = line.dropFirst().trimmingCharacters(in: .whitespaces); continue }
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    let value = line[line.index(after: colon)...].drop { $0 == " " }
                    switch line[..<colon] {
                    case "id": frame.id = Int64(value)
                    case "event": frame.kind = String(value)
                    case "data": frame.data = String(value)
                    default: break
                    }
                }
                return frame
            }
            guard ContinuousClock.now < deadline else { throw StreamTimeout() }
            guard let chunk = try await body.next() else { return nil }
            pending += String(buffer: chunk)
        }
    }

    /// The next `count` events (heartbeats and other comments skipped).
    public mutating func events(_ count: Int, within limit: Duration = .seconds(30)) async throws -> [Frame] {
        var events: [Frame] = []
        while events.count < count {
            guard let frame = try await next(within: limit) else { throw StreamTimeout() }
            if frame.id != nil { events.append(frame) }
        }
        return events
    }

    public struct StreamTimeout: Error {}
}
