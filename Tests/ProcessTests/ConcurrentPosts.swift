import AsyncHTTPClient
import CatalogTestSupport
import Foundation
import NIOCore
import NIOHTTP1

/// Many POSTs at once to server processes, each request on a connection of its own: what a crowd of client
/// apps sending the same proof looks like to the servers.
enum ConcurrentPosts {
    /// Sends `count` POSTs of `body(index)` to `path` with `key`, request `index` to `servers[index %
    /// servers.count]`, all at once; answers each one's answer, in no particular order.
    static func send(_ count: Int, to servers: [ServerProcess], path: String, key: String,
                     body: @escaping @Sendable (Int) -> String) async throws -> [Answer] {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(idleTimeout: .seconds(30),
                                             concurrentHTTP1ConnectionsPerHostSoftLimit: count / max(1, servers.count) + 1)
        let http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        let urls = servers.map { $0.baseURL + path }
        do {
            let answers = try await withThrowingTaskGroup(of: Answer.self) { group in
                for index in 0..<count {
                    group.addTask {
                        var request = HTTPClientRequest(url: urls[index % urls.count])
                        request.method = .POST
                        request.headers.add(name: "Authorization", value: "Bearer \(key)")
                        request.headers.add(name: "Content-Type", value: "application/json")
                        request.body = .bytes(ByteBuffer(string: body(index)))
                        let response = try await http.execute(request, timeout: .seconds(120))
                        let data = try await response.body.collect(upTo: 1 << 20)
                        return Answer(status: Int(response.status.code), headers: response.headers,
                                      body: String(buffer: data), duration: .zero)
                    }
                }
                return try await group.reduce(into: [Answer]()) { $0.append($1) }
            }
            try await http.shutdown()
            return answers
        } catch {
            try? await http.shutdown()
            throw error
        }
    }
}
