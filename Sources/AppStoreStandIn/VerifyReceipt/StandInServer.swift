import Foundation
import Hummingbird
import Logging
import NIOCore

/// Runs the stand-in's routes as an HTTP server: `appstore-standin serve`, and tests on a free local port.
public enum StandInServer {
    /// The application serving `store` at `host`:`port` (0: any free port; `onRunning` learns which).
    public static func application(
        store: StandInAppStore, host: String = "127.0.0.1", port: Int = 0, logger: Logger,
        onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        Application(
            router: StandInRoutes.router(for: store),
            // A benchmark opens thousands of connections at once: a deep accept queue keeps them from being
            // refused before they are accepted.
            configuration: .init(address: .hostname(host, port: port), serverName: nil, backlog: 4096),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? port) },
            logger: logger)
    }

    /// Runs a stand-in serving `store` on a free port of 127.0.0.1 while `body` runs, and stops it after.
    /// `body` gets the server's base URL (`http://127.0.0.1:PORT`): production's verifyReceipt is
    /// `base/verifyReceipt` and the sandbox's `base/sandbox/verifyReceipt`.
    public static func withRunning<Result: Sendable>(
        _ store: StandInAppStore, logger: Logger = Logger(label: "appstore-standin"),
        _ body: (URL) async throws -> Result
    ) async throws -> Result {
        let (ports, portSink) = AsyncStream<Int>.makeStream()
        let app = application(store: store, logger: logger) { port in
            portSink.yield(port)
            portSink.finish()
        }
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                // A server that cannot start (no port) ends the wait for its port too.
                defer { portSink.finish() }
                try await app.run()
            }
            defer { group.cancelAll() }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else {
                try await group.next()  // the server's own error, if it threw one
                throw StandInServerStopped()
            }
            return try await body(URL(string: "http://127.0.0.1:\(port)")!)
        }
    }
}

/// The stand-in stopped before it served.
public struct StandInServerStopped: Error, CustomStringConvertible {
    public var description: String { "the stand-in stopped before it served" }
}
