import Hummingbird
import Logging

/// A real HTTP server for tests, on a free port of the loopback interface.
public enum LoopbackServer {
    /// Starts `router`'s application; answers its port once it listens, and the task that runs it (cancelling the
    /// task stops it).
    public static func start(_ router: Router<BasicRequestContext>, label: String) async throws
        -> (port: Int, task: Task<Void, any Error>)
    {
        let (ports, listening) = AsyncStream<Int>.makeStream()
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                listening.yield(channel.localAddress?.port ?? 0)
                listening.finish()
            },
            logger: Logger(label: label, factory: { _ in SwiftLogNoOpLogHandler() }))
        let task = Task {
            defer { listening.finish() }
            try await app.runService(gracefulShutdownSignals: [])
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            task.cancel()
            throw TestSetupError("\(label) did not start: \(String(describing: await task.result))")
        }
        return (port, task)
    }
}
