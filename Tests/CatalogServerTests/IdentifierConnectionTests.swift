import CatalogCore
import CatalogServer
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// The identifier route as a client app meets it: over a real TCP connection, where it is answered on the
/// connection's event loop (IdentifierChannelHandler) rather than by the router, as the in-process tests are.
@Suite("Product identifiers over a real connection")
struct IdentifierConnectionTests {
    @Test("GET, HEAD, 304, a type filter and a missing app answer as documented, each counted in /metrics")
    func answers() async throws {
        let fixture = try await APIFixture.forSuite("identifier_connection")
        let admin = try await fixture.key(.admin)
        try await fixture.run(mode: .live) { api in
            let app = "com.connection.app"
            try await api.createApp(app, key: admin)
            try await api.createProduct(app, "coins", type: .consumable, key: admin)
            for action in [ReviewAction.approve, .submit, .startReview, .accept] { try await api.move(action, app, "coins", key: admin) }
            let path = "/v1/apps/\(app)/product-identifiers"
            let body = #"{"bundleId":"com.connection.app","productIdentifiers":["coins"]}"#
            let get = try await eventually { try await api.send(.get, path) } until: { String(buffer: $0.body) == body }
            let eTag = try #require(get.headers[.eTag])
            #expect(get.status == .ok && get.headers[.contentType] == "application/json")
            #expect(get.headers[.cacheControl] == "no-cache" && get.headers[.contentLength] == String(body.utf8.count))
            #expect(get.headers[.date]?.hasSuffix(" GMT") == true && get.headers[.server] == "iap-catalog")

            let head = try await api.send(.head, path)
            #expect(head.status == .ok && head.body.readableBytes == 0 && head.headers[.eTag] == eTag)
            #expect(head.headers[.contentLength] == String(body.utf8.count))

            let notModified = try await api.send(.get, path, headers: [.ifNoneMatch: "W/\(eTag)"])
            #expect(notModified.status == .notModified && notModified.body.readableBytes == 0)
            #expect(notModified.headers[.eTag] == eTag)

            let typed = try await api.send(.get, path + "?type=NON_CONSUMABLE")
            #expect(String(buffer: typed.body) == #"{"bundleId":"com.connection.app","productIdentifiers":[]}"#)

            let missing = try await api.send(.get, "/v1/apps/com.connection.none/product-identifiers")
            #expect(missing.status == .notFound && String(buffer: missing.body) == #"{"error":"app not found"}"#)

            let metrics = String(buffer: try await api.send(.get, "/metrics").body)
            let route = #"http_requests_total{route="/v1/apps/{bundleId}/product-identifiers","#
            #expect(metrics.contains(route + #"method="GET",status="200"}"#))
            #expect(metrics.contains(route + #"method="HEAD",status="200"} 1"#))
            #expect(metrics.contains(route + #"method="GET",status="304"} 1"#))
            #expect(metrics.contains(route + #"method="GET",status="404"} 1"#))
        }
    }

    @Test("pipelined requests are answered in the order they came, the router's and the event loop's alike")
    func pipelinedOrder() async throws {
        let fixture = try await APIFixture.forSuite("identifier_connection")
        let admin = try await fixture.key(.admin)
        try await fixture.run(mode: .live) { api in
            let app = "com.connection.pipelined"
            try await api.createApp(app, key: admin)
            _ = try await eventually { try await api.send(.get, "/v1/apps/\(app)/product-identifiers") } until: { $0.status == .ok }
            let port = try #require(api.client.port)
            let routed = "GET /v1/apps/\(app) HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer \(admin)\r\n\r\n"
            let identifiers = "GET /v1/apps/\(app)/product-identifiers HTTP/1.1\r\nHost: test\r\n\r\n"
            let last = "GET /v1/apps/\(app)/product-identifiers?type=CONSUMABLE HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n"
            // A routed request first, two for the event loop while it is still being answered, then the same
            // again with the event loop's first: every answer must come back in its request's place.
            let text = try await RawConnection.exchange(port: port, routed + identifiers + identifiers + routed + last)
            let answers = text.components(separatedBy: "HTTP/1.1 ").dropFirst().map { String($0) }
            #expect(answers.count == 5, "\(text)")
            guard answers.count == 5 else { return }
            #expect(answers[0].hasPrefix("200") && answers[0].contains(#""name":"#))
            #expect(answers[1].hasPrefix("200") && answers[1].contains(#""productIdentifiers":[]"#))
            #expect(answers[2].hasPrefix("200") && answers[2].contains(#""productIdentifiers":[]"#))
            #expect(answers[3].hasPrefix("200") && answers[3].contains(#""name":"#))
            #expect(answers[4].hasPrefix("200") && answers[4].contains(#""productIdentifiers":[]"#))
        }
    }

    @Test("requests read from the wire and requests read by NIO's decoder are answered alike, byte for byte")
    func wireAndDecoderAlike() async throws {
        let fixture = try await APIFixture.forSuite("identifier_connection")
        let admin = try await fixture.key(.admin)
        try await fixture.run(mode: .live) { api in
            let app = "com.connection.alike"
            try await api.createApp(app, key: admin)
            try await api.createProduct(app, "coins", type: .consumable, key: admin)
            for action in [ReviewAction.approve, .submit, .startReview, .accept] { try await api.move(action, app, "coins", key: admin) }
            let path = "/v1/apps/\(app)/product-identifiers"
            let get = try await eventually { try await api.send(.get, path) } until: { $0.status == .ok && $0.body.readableBytes > 50 }
            let eTag = try #require(get.headers[.eTag])
            let port = try #require(api.client.port)
            let variants = [
                "GET \(path)", "HEAD \(path)", "GET \(path)?type=CONSUMABLE", "GET \(path)?type=AUTO_RENEWABLE_SUBSCRIPTION",
                "GET \(path)\r\nIf-None-Match: \(eTag)", "GET \(path)\r\nIf-None-Match: \"other\", W/\(eTag)",
                "GET \(path)\r\nIf-None-Match: \"other\"", "GET /v1/apps/com.connection.none/product-identifiers",
                "HEAD /v1/apps/com.connection.none/product-identifiers",
            ]
            for variant in variants {
                // The wire handler reads only `Connection: close` or `keep-alive`; NIO's decoder reads a list.
                let (line, headers) = variant.firstRange(of: "\r\n").map { (String(variant[..<$0.lowerBound]), String(variant[$0.lowerBound...])) }
                    ?? (variant, "")
                let wire = try await RawConnection.exchange(port: port, "\(line) HTTP/1.1\r\nHost: t\(headers)\r\nConnection: close\r\n\r\n")
                let decoded = try await RawConnection.exchange(port: port, "\(line) HTTP/1.1\r\nHost: t\(headers)\r\nConnection: close, x-other\r\n\r\n")
                let date = /Date: [^\r]+/
                #expect(wire.hasPrefix("HTTP/1.1 "), "\(variant)")
                #expect(wire.replacing(date, with: "Date") == decoded.replacing(date, with: "Date"), "\(variant)")
            }
        }
    }

    @Test("a connection that asks only for identifiers is kept past the idle timeout; left idle, it is closed")
    func idleTimeout() async throws {
        let fixture = try await APIFixture.forSuite("identifier_connection")
        let admin = try await fixture.key(.admin)
        let app = "com.connection.idle"
        _ = try await fixture.run { api in try await api.createApp(app, key: admin) }
        var limits = TestArguments(databaseURL: fixture.url, migrationDatabaseURL: nil).limits
        limits.idleTimeout = .seconds(2)
        // Raw connections only: the test client would meet its own pooled connection closed by the short timeout.
        try await fixture.run(limits: limits, mode: .live) { api in
            let port = try #require(api.client.port)
            let request = "GET /v1/apps/\(app)/product-identifiers HTTP/1.1\r\nHost: test\r\n\r\n"
            let (answers, closed, waited) = try await RawConnection.run(port: port) { connection in
                var answers = 0
                // Three seconds of asking, each answered on the event loop: longer than the idle timeout.
                for _ in 0..<10 {
                    try connection.send(request)
                    if try connection.response()?.hasPrefix("HTTP/1.1 200 OK") == true { answers += 1 }
                    Thread.sleep(forTimeInterval: 0.3)
                }
                let start = ContinuousClock.now
                return (answers, try connection.closedByServer(), ContinuousClock.now - start)
            }
            #expect(answers == 10)
            #expect(closed && waited < .seconds(8), "closed: \(closed) after \(waited)")
        }
    }

    @Test("Connection: close and HTTP/1.0 are answered, then the connection is closed")
    func closing() async throws {
        let fixture = try await APIFixture.forSuite("identifier_connection")
        let admin = try await fixture.key(.admin)
        try await fixture.run(mode: .live) { api in
            let app = "com.connection.closing"
            try await api.createApp(app, key: admin)
            _ = try await eventually { try await api.send(.get, "/v1/apps/\(app)/product-identifiers") } until: { $0.status == .ok }
            let port = try #require(api.client.port)
            let body = #"{"bundleId":"com.connection.closing","productIdentifiers":[]}"#
            for request in ["GET /v1/apps/\(app)/product-identifiers HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n",
                            "GET /v1/apps/\(app)/product-identifiers HTTP/1.0\r\n\r\n"] {
                let start = ContinuousClock.now
                // The connection's receive timeout is 10 s: an answer not followed by a close comes back after it.
                let text = try await RawConnection.exchange(port: port, request)
                #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n") && text.hasSuffix("\r\n\r\n" + body), "\(text)")
                #expect(ContinuousClock.now - start < .seconds(8), "\(request)")
            }
        }
    }

    /// The first answer of `request` that `done` accepts, asked again for up to five seconds: the snapshot
    /// of an app follows its changes through the database's notifications.
    private func eventually(_ request: () async throws -> TestResponse,
                            until done: (TestResponse) -> Bool) async throws -> TestResponse {
        let deadline = ContinuousClock.now + .seconds(5)
        while true {
            let response = try await request()
            if done(response) || ContinuousClock.now > deadline { return response }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}

/// One TCP connection driven byte by byte: what a test client cannot do (it sends one request at a time and
/// hides the connection). Its calls block; ``run(port:_:)`` runs them on a thread of their own.
final class RawConnection {
    private let socket: Int32
    private var received: [UInt8] = []

    /// Connects to `port`, runs `body` with the connection on a thread of its own, and closes it.
    static func run<T: Sendable>(port: Int, _ body: @escaping @Sendable (RawConnection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result { try body(RawConnection(port: port)) })
            }.start()
        }
    }

    /// Sends `request` and returns everything the server sends until it closes the connection.
    static func exchange(port: Int, _ request: String) async throws -> String {
        try await run(port: port) { connection in
            try connection.send(request)
            while try connection.receive() {}
            return String(decoding: connection.received, as: UTF8.self)
        }
    }

    private init(port: Int) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw UnexpectedResponse(description: "socket() failed: \(errno)") }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(socket)
            throw UnexpectedResponse(description: "connect() failed: \(errno)")
        }
    }

    deinit { close(socket) }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw UnexpectedResponse(description: "send() failed: \(errno)") }
            sent += n
        }
    }

    /// The next response to a `GET`: its head and as many bytes of body as its `Content-Length` says (none
    /// when absent); `nil` when the server closed the connection first.
    func response() throws -> String? {
        while true {
            if let end = received.firstRange(of: Array("\r\n\r\n".utf8))?.upperBound {
                let head = String(decoding: received[..<end], as: UTF8.self)
                let length = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                if received.count >= end + length {
                    let response = String(decoding: received[..<(end + length)], as: UTF8.self)
                    received.removeFirst(end + length)
                    return response
                }
            }
            guard try receive() else { return nil }
        }
    }

    /// Waits for the server to close the connection (reading and keeping whatever comes before), up to the
    /// receive timeout of 10 s: whether it closed.
    func closedByServer() throws -> Bool {
        while try receive() {}
        return errno != EAGAIN && errno != EWOULDBLOCK
    }

    /// Reads what is there into `received`: `false` at the end of the stream (or on timeout).
    private func receive() throws -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        errno = 0
        let n = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return false }
        received += buffer[..<n]
        return true
    }
}
