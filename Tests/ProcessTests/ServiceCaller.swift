import AsyncHTTPClient
import CatalogAPI
import CatalogAPIConventions
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

/// What a server process answered, and how long it took.
struct Answer: Sendable {
    let status: Int
    let headers: HTTPHeaders
    let body: String
    let duration: Duration

    var isProblem: Bool { headers.first(name: "Content-Type") == "application/problem+json" }
    var retryAfter: Int? { headers.first(name: "Retry-After").flatMap { Int($0) } }
    /// A refusal as the service promises it under faults: 503 problem details that say when to retry.
    var isUnavailable: Bool { status == 503 && isProblem && (retryAfter ?? 0) >= 1 }
}

/// Requests to one server process.
struct ServiceCaller: Sendable {
    /// One client for every test of the process, never shut down (as `HTTPClient.shared`), with room for as
    /// many concurrent connections as the tests open: the shared client queues beyond 8 per host, which
    /// would hide how long the server itself takes.
    private static let http: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(idleTimeout: .seconds(30), concurrentHTTP1ConnectionsPerHostSoftLimit: 64)
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    let baseURL: String

    init(_ baseURL: String) { self.baseURL = baseURL }

    /// Sends one request; throws only when no answer came (connection refused, timeout).
    func call(_ method: HTTPMethod, _ path: String, key: String? = nil, json: String? = nil,
              headers: [(String, String)] = [], timeout: Duration = .seconds(15)) async throws -> Answer {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        if let key { request.headers.add(name: "Authorization", value: "Bearer \(key)") }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: json))
        }
        let clock = ContinuousClock()
        let start = clock.now
        let response = try await Self.http.execute(request, timeout: .milliseconds(Int64(timeout.components.seconds * 1000)))
        let body = try await response.body.collect(upTo: 16 << 20)
        return Answer(status: Int(response.status.code), headers: response.headers, body: String(buffer: body),
                      duration: clock.now - start)
    }

    /// Decodes a 2xx answer's JSON body.
    func decode<T: Decodable>(_ type: T.Type, from answer: Answer) throws -> T {
        guard (200..<300).contains(answer.status) else {
            throw UnexpectedAnswer(description: "expected 2xx, got \(answer.status): \(answer.body)")
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            try RFC3339DateTranscoder().decode(try decoder.singleValueContainer().decode(String.self))
        }
        return try decoder.decode(T.self, from: Data(answer.body.utf8))
    }

}

struct UnexpectedAnswer: Error, CustomStringConvertible {
    let description: String
}

/// Whether a new TCP connection to `port` on 127.0.0.1 is refused (nothing listens there any more).
func connectionRefused(port: Int) -> Bool {
    let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard socket >= 0 else { return false }
    defer { close(socket) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let result = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            Foundation.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    return result != 0 && errno == ECONNREFUSED
}

/// A value shared by the tasks of a test, behind a lock.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) { mutex = Mutex(value) }

    var value: Value { mutex.withLock { $0 } }

    @discardableResult
    func withLock<Result: Sendable>(_ body: (inout Value) -> Result) -> Result { mutex.withLock { body(&$0) } }
}
