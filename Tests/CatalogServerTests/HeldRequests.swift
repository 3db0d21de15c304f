import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore

/// Requests the server is answering for as long as a test wants, over connections of their own: each sends its
/// head and the first byte of its body, the rest after `hold`; each task answers the response (its head and
/// body, or "" if none came within 10 s of the rest).
enum HeldRequests {
    /// Long enough to check what happens meanwhile on a machine busy with the whole suite (12 s was not, once).
    static let hold = Duration.seconds(30)

    static func start(_ count: Int, port: Int, path: String, key: String, for duration: Duration = hold,
                      body: @escaping @Sendable (Int) -> String) -> [Task<String, any Error>] {
        (0..<count).map { index in
            Task {
                try await RawConnection.run(port: port) { connection in
                    let text = body(index)
                    try connection.send("POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(key)\r\n"
                                        + "Content-Type: application/json\r\nContent-Length: \(text.utf8.count)\r\n\r\n"
                                        + String(text.prefix(1)))
                    Thread.sleep(forTimeInterval: Double(duration.components.seconds)
                                 + Double(duration.components.attoseconds) / 1e18)
                    try connection.send(String(text.dropFirst()))
                    return try connection.response() ?? ""
                }
            }
        }
    }

    /// Waits (at most 5 s) until the server counts at least `count` requests in flight (`http_requests_in_flight`
    /// in `/metrics`, the reading request included); answers the last count read.
    static func waitUntilInFlight(_ count: Int, _ client: any TestClientProtocol) async throws -> Int {
        let start = ContinuousClock.now
        var seen = 0
        while seen < count, ContinuousClock.now - start < .seconds(5) {
            try await Task.sleep(for: .milliseconds(20))
            let metrics = String(buffer: try await client.execute(uri: "/metrics", method: .get, headers: [:], body: nil).body)
            seen = metrics.split(separator: "\n").first { $0.hasPrefix("http_requests_in_flight ") }
                .flatMap { Double($0.split(separator: " ")[1]) }.map { Int($0) } ?? 0
        }
        return seen
    }
}
