import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// A webhook receiver for tests: a real HTTP server on a port of the loopback interface that keeps every
/// message it is sent (headers and exact body) and answers 204, or, while it is made to fail, the status it is
/// told. Messages are told apart by `webhook-id`, as a receiver that deduplicates would.
public final class WebhookReceiver: Sendable {
    /// One request as received.
    public struct Message: Sendable {
        public let id: String
        public let timestamp: String
        public let signature: String
        public let body: [UInt8]
        public let receivedAt: Date

        /// The event's sequence, from its id (`evt_<sequence>`).
        public var sequence: Int64? { id.hasPrefix("evt_") ? Int64(id.dropFirst(4)) : nil }
    }

    private struct State {
        var messages: [Message] = []
        var failing: Int?
        var failOnce: (at: Int, status: Int)?
    }

    private let state = Mutex(State())
    private let task: Task<Void, any Error>
    /// The port it listens on.
    public let port: Int

    private init(port: Int, task: Task<Void, any Error>) {
        self.port = port
        self.task = task
    }

    /// `http://127.0.0.1:PORT/path`.
    public func url(_ path: String = "/hooks") -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Starts a receiver on a free port.
    public static func start() async throws -> WebhookReceiver {
        // The route is made before the receiver it hands requests to; until then it answers 503.
        let box = Mutex<WebhookReceiver?>(nil)
        let router = Router()
        router.post("**") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            let receiver = box.withLock { $0 }
            return receiver?.receive(request, body: Array(buffer: body)) ?? Response(status: .serviceUnavailable)
        }
        let (port, task) = try await LoopbackServer.start(router, label: "the webhook receiver")
        let receiver = WebhookReceiver(port: port, task: task)
        box.withLock { $0 = receiver }
        return receiver
    }

    /// Stops listening.
    public func stop() async {
        task.cancel()
        _ = await task.result
    }

    private func receive(_ request: Request, body: [UInt8]) -> Response {
        func header(_ name: String) -> String { HTTPField.Name(name).flatMap { request.headers[$0] } ?? "" }
        let message = Message(id: header("webhook-id"), timestamp: header("webhook-timestamp"),
                              signature: header("webhook-signature"), body: body, receivedAt: Date())
        let failing = state.withLock { state -> Int? in
            if let failing = state.failing { return failing }
            if let once = state.failOnce, state.messages.count == once.at {
                state.failOnce = nil
                return once.status
            }
            state.messages.append(message)
            return nil
        }
        return Response(status: failing.map { HTTPResponse.Status(code: $0) } ?? .noContent)
    }

    /// Answers `status` to every request from now on (`nil`: delivered again, 204). Requests answered so are not kept.
    public func fail(with status: Int?) {
        state.withLock { $0.failing = status }
    }

    /// Answers `status` once, to the request that arrives when `count` messages have been kept.
    public func fail(once status: Int, at count: Int) {
        state.withLock { $0.failOnce = (count, status) }
    }

    /// Every message received (answered 2xx), duplicates included, in arrival order.
    public var messages: [Message] { state.withLock { $0.messages } }

    /// The messages by first arrival, one per `webhook-id`.
    public var distinct: [Message] {
        var seen = Set<String>()
        return messages.filter { seen.insert($0.id).inserted }
    }

    /// Waits until `count` distinct messages have arrived (at most `timeout`), and answers them in first-arrival order.
    public func waitFor(_ count: Int, timeout: Duration = .seconds(60)) async throws -> [Message] {
        let deadline = ContinuousClock.now + timeout
        while true {
            let distinct = distinct
            if distinct.count >= count { return distinct }
            guard ContinuousClock.now < deadline else {
                throw TestSetupError("the receiver got \(distinct.count) of \(count) messages within \(timeout)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Writes each message as `scripts/verify-webhook` reads them (a folder per message: id, timestamp,
    /// signature, body) into a new folder, and answers it.
    public func write(_ messages: [Message]) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("webhooks-\(UUID().uuidString)")
        for (index, message) in messages.enumerated() {
            let directory = folder.appendingPathComponent(String(format: "%06d", index))
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data(message.id.utf8).write(to: directory.appendingPathComponent("id"))
            try Data(message.timestamp.utf8).write(to: directory.appendingPathComponent("timestamp"))
            try Data(message.signature.utf8).write(to: directory.appendingPathComponent("signature"))
            try Data(message.body).write(to: directory.appendingPathComponent("body"))
        }
        return folder
    }
}
