import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// Hummingbird's HTTP/1 channel with ``ConnectionLifetimeHandler`` and ``IdentifierChannelHandler`` placed just
/// after NIO's HTTP/1 decoder, where requests are still NIO's `HTTPServerRequestPart`s (Hummingbird's own hook
/// for extra handlers places them after its conversion to HTTPTypes). The idle timeout is the first handler's,
/// not Hummingbird's, which would not see the requests the second answers.
struct IdentifierHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value
    let base: HTTP1Channel
    let idleTimeout: TimeAmount
    let makeHandler: @Sendable () -> IdentifierChannelHandler

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            let lifetime = ConnectionLifetimeHandler(timeout: idleTimeout)
            try pipeline.addHandler(lifetime, position: .after(decoder))
            try pipeline.addHandler(makeHandler(), position: .after(lifetime))
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
                makeHandler: { IdentifierChannelHandler(snapshots: snapshots, metrics: metrics, serverName: serverName) })
        }
    }
}
