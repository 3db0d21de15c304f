import HummingbirdCore
import Logging
import NIOCore

/// Hummingbird's HTTP/1 channel with ``IdentifierChannelHandler`` placed just before the application's end of
/// the pipeline (Hummingbird's own hook for extra handlers places them before its connection state handler).
struct IdentifierHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value
    let base: HTTP1Channel
    let makeHandler: @Sendable () -> IdentifierChannelHandler

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let state = try channel.pipeline.syncOperations.handler(type: HTTPConnectionStateHandler.self)
            try channel.pipeline.syncOperations.addHandler(makeHandler(), position: .after(state))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }

    /// A server of these channels.
    static func server(idleTimeout: TimeAmount, snapshots: IdentifierSnapshots, metrics: ServiceMetrics,
                       serverName: String) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            IdentifierHTTP1Channel(
                base: HTTP1Channel(responder: responder, configuration: .init(idleTimeout: idleTimeout)),
                makeHandler: { IdentifierChannelHandler(snapshots: snapshots, metrics: metrics, serverName: serverName) })
        }
    }
}
