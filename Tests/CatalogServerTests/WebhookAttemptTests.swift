import CatalogCore
import CatalogTestSupport
import Foundation
import Hummingbird
import Logging
import NIOCore
import Testing
import WebhookClient

/// One attempt of WebhookSender, against receivers that answer badly: whatever they do, the attempt ends within
/// its timeout (connecting, sending and the whole answer).
@Suite("Webhook attempts")
struct WebhookAttemptTests {
    /// A receiver on loopback whose one route is `answer`; stopped when `body` ends.
    private func withReceiver(_ answer: @escaping @Sendable (Request) async throws -> Response,
                              _ body: (URL) async throws -> Void) async throws {
        let router = Router()
        router.post("**") { request, _ in try await answer(request) }
        let (port, server) = try await LoopbackServer.start(router, label: "the test's receiver")
        defer { server.cancel() }
        try await body(try #require(URL(string: "http://127.0.0.1:\(port)/hooks")))
    }

    /// Sends one message to each of `urls` in turn, by one sender with a one-second timeout; answers each outcome
    /// and how long it took.
    private func attempts(_ urls: [URL]) async throws -> [(WebhookSendOutcome, Duration)] {
        var settings = WebhookSenderSettings(policy: WebhookAddressPolicy(allowsLoopbackHTTP: true))
        settings.timeout = .seconds(1)
        let sender = WebhookSender(settings: settings, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        var results: [(WebhookSendOutcome, Duration)] = []
        for url in urls {
            let started = ContinuousClock.now
            let outcome = await sender.send(WebhookMessage(id: "evt_1", timestamp: 1, body: ByteBuffer(string: "{}")),
                                            to: try WebhookURL(url.absoluteString), secret: WebhookSecret.generate())
            results.append((outcome, ContinuousClock.now - started))
        }
        await sender.shutdown()
        return results
    }

    private func attempt(_ url: URL) async throws -> (WebhookSendOutcome, Duration) {
        try await attempts([url])[0]
    }

    @Test("an answer whose body never ends is given up at the timeout, though bytes keep coming")
    func drippingAnswer() async throws {
        try await withReceiver({ _ in
            // Each byte comes well within the read timeout; only the attempt's own bound can end it.
            Response(status: .ok, headers: [.contentLength: "100000"], body: ResponseBody { writer in
                for _ in 0..<100_000 {
                    try await writer.write(ByteBuffer(string: " "))
                    try await Task.sleep(for: .milliseconds(50))
                }
                try await writer.finish(nil)
            })
        }) { url in
            let (outcome, took) = try await attempt(url)
            #expect(outcome == .failed(status: nil, reason: "no answer within 1.0 seconds"))
            #expect(took >= .milliseconds(900) && took < .seconds(3), "\(took)")
        }
    }

    @Test("a receiver that never answers is given up at the timeout")
    func silentReceiver() async throws {
        try await withReceiver({ _ in
            try await Task.sleep(for: .seconds(30))
            return Response(status: .noContent)
        }) { url in
            let (outcome, took) = try await attempt(url)
            #expect(outcome == .failed(status: nil, reason: "no answer within 1.0 seconds"))
            #expect(took >= .milliseconds(900) && took < .seconds(3), "\(took)")
        }
    }

    @Test("prompt answers, with a body or without, are delivered one after another by one sender")
    func promptAnswer() async throws {
        try await withReceiver({ request in
            request.uri.path.hasSuffix("/text")
                ? Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(string: "received")))
                : Response(status: .noContent)
        }) { url in
            let targets = [url, url.appendingPathComponent("text"), url, url.appendingPathComponent("text")]
            for (target, (outcome, took)) in zip(targets, try await attempts(targets)) {
                #expect(outcome == .delivered(status: target.path.hasSuffix("/text") ? 200 : 204))
                #expect(took < .seconds(1), "\(took)")
            }
        }
    }
}
