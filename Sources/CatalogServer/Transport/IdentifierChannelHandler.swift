import CatalogCore
import HTTPTypes
import NIOCore
import NIOHTTP1

/// Answers the identifier route (as ``IdentifierFastPath`` does) on the connection's event loop, as the
/// request's head is decoded: no task, no hop to Swift concurrency's threads and back, no router, and no
/// conversion to and from HTTPTypes. On the hot path of every client app's launch, that machinery is most of
/// the cost of an answer held in memory.
///
/// It sits in the channel's pipeline just after NIO's HTTP/1 decoder, before Hummingbird's handlers. So that
/// requests answered here count as any other: ``ConnectionLifetimeHandler``, before it, sees them for idle
/// timeouts and `Connection: close`; graceful shutdown needs nothing, as each is answered within the read that
/// brought it. Responses leave in the order requests came: while a request handed on to the application has not
/// been answered, later ones are handed on too (and answered by ``IdentifierFastPath`` from the same snapshots),
/// so that a pipelined request never overtakes another. HTTP/1.0 requests are handed on.
final class IdentifierChannelHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let snapshots: IdentifierSnapshots
    private let metrics: ServiceMetrics
    private let serverName: String
    /// Requests handed on to the application whose response has not ended yet.
    private var handedOn = 0
    /// Whether the rest of the request being read (its body, its end) was answered here already.
    private var answered = false
    /// Whether answers were written since the last flush: they leave together at the end of the read.
    private var unflushed = false
    private var date = HTTPDate()

    init(snapshots: IdentifierSnapshots, metrics: ServiceMetrics, serverName: String) {
        self.snapshots = snapshots
        self.metrics = metrics
        self.serverName = serverName
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            if handedOn == 0, head.version == .http1_1, head.method == .GET || head.method == .HEAD,
               snapshots.isLoaded, let (bundleID, type) = IdentifierRoute.match(target: head.uri)
            {
                answered = true
                answer(head, bundleID, type, context: context)
            } else {
                handedOn += 1
                context.fireChannelRead(data)
            }
        case .body:
            if !answered { context.fireChannelRead(data) }
        case .end:
            if !answered { context.fireChannelRead(data) }
            answered = false
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if unflushed {
            unflushed = false
            context.flush()
        }
        context.fireChannelReadComplete()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { handedOn -= 1 }
        context.write(data, promise: promise)
    }

    private func answer(_ request: HTTPRequestHead, _ bundleID: Substring, _ type: PurchaseType?,
                        context: ChannelHandlerContext) {
        let clock = ContinuousClock()
        let start = clock.now
        let ifNoneMatch = request.headers["If-None-Match"]
        let answer = IdentifierAnswer(snapshots, bundleID: bundleID, type: type,
                                      ifNoneMatch: ifNoneMatch.isEmpty ? nil : ifNoneMatch.joined(separator: ", "))
        var headers = HTTPHeaders()
        answer.forEachHeader(date: date.now, server: serverName) { headers.add(name: $0, value: $1) }
        let status = HTTPResponseStatus(statusCode: Int(answer.httpStatus.code))
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))),
                      promise: nil)
        if let body = answer.body, request.method == .GET { context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil) }
        // A request that asked to close is closed after this by ConnectionLifetimeHandler.
        context.write(wrapOutboundOut(.end(nil)), promise: nil)
        unflushed = true
        metrics.request(route: IdentifierRoute.pattern, method: request.method == .GET ? .get : .head,
                        status: answer.httpStatus, duration: clock.now - start)
    }
}
