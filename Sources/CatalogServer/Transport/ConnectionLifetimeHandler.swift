import NIOCore
import NIOHTTP1

/// Closes a connection when HTTP/1 says it is done: after the response to a request that did not ask to keep
/// it (`Connection: close`, or HTTP/1.0 without `keep-alive`), and when it has been left idle for `timeout`
/// (nothing read and nothing being answered, or a request whose client has stopped sending it).
///
/// Hummingbird's connection state handler keeps the idle timeout for the requests it sees, and closes only
/// on `Connection: close`; this one sits just after NIO's decoder, where every request is seen, those
/// ``IdentifierChannelHandler`` answers included (they never reach Hummingbird), and is told of those
/// ``IdentifierWireHandler`` answers before the decoder, so that a client asking only for identifiers keeps
/// its connection.
final class ConnectionLifetimeHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let timeout: TimeAmount
    /// Whether each request read (its head at least) whose response has not ended wants the connection kept.
    private var unanswered = CircularBuffer<Bool>(initialCapacity: 4)
    /// Whether a request's head has been read but not its end.
    private var reading = false
    private var lastActivity = NIODeadline.now()
    private var check: Scheduled<Void>?

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    /// Counts a request answered before the decoder (``IdentifierWireHandler``) as activity.
    func recordActivity() {
        lastActivity = .now()
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { schedule(context, at: .now() + timeout) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        check?.cancel()
        check = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        schedule(context, at: .now() + timeout)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        check?.cancel()
        check = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        lastActivity = .now()
        switch unwrapInboundIn(data) {
        case .head(let head):
            unanswered.append(head.isKeepAlive)
            reading = true
        case .body: break
        case .end: reading = false
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .end = unwrapOutboundIn(data) else { return context.write(data, promise: promise) }
        lastActivity = .now()
        if unanswered.popFirst() == false {
            context.writeAndFlush(data, promise: promise)
            context.close(promise: nil)
        } else {
            context.write(data, promise: promise)
        }
    }

    private func schedule(_ context: ChannelHandlerContext, at deadline: NIODeadline) {
        guard check == nil else { return }
        check = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            check = nil
            if !unanswered.isEmpty, !reading {
                // The application is still answering: time spent answering is not idleness.
                schedule(context, at: .now() + timeout)
            } else if NIODeadline.now() >= lastActivity + timeout {
                context.close(promise: nil)
            } else {
                schedule(context, at: lastActivity + timeout)
            }
        }
    }
}
