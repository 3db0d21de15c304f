import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// Hummingbird's HTTP/1 channel with three handlers of ours: ``IdentifierWireHandler`` first, before NIO's
/// HTTP/1 decoder; then, just after the decoder, where requests are still NIO's `HTTPServerRequestPart`s
/// (Hummingbird's own hook for extra handlers places them after its conversion to HTTPTypes),
/// ``ConnectionLifetimeHandler`` and ``IdentifierChannelHandler``. The idle timeout is the lifetime handler's,
/// not Hummingbird's, which would not see the requests the other two answer.
struct IdentifierHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value
    let base: HTTP1Channel
    let idleTimeout: TimeAmount
    let makeHandler: @Sendable () -> IdentifierChannelHandler
    let makeWireHandler: @Sendable (ConnectionLifetimeHandler) -> IdentifierWireHandler

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            let lifetime = ConnectionLifetimeHandler(timeout: idleTimeout)
            try pipeline.addHandler(lifetime, position: .after(decoder))
            try pipeline.addHandler(makeHandler(), position: .after(lifetime))
            try pipeline.addHandler(makeWireHandler(lifetime), position: .first)
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
                base: HTTP1Channel(responder: responder, configuration: .init(idleTimeout: nil)),
                idleTimeout: idleTimeout,
                makeHandler: { IdentifierChannelHandler(snapshots: snapshots, metrics: metrics, serverName: serverName) },
                makeWireHandler: {
                    IdentifierWireHandler(snapshots: snapshots, metrics: metrics, serverName: serverName, lifetime: $0)
                })
        }
    }
}
