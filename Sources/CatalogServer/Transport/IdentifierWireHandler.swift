import CatalogCore
import HTTPTypes
import NIOCore

/// Answers plain identifier requests straight from the bytes a connection reads, first in its pipeline: no
/// HTTP/1 decoder, no header objects, no encoder. This is what lets the route keep up with nginx serving the
/// same bytes from disk (docs/performance.md); ``IdentifierChannelHandler`` and the router answer the same
/// from the same snapshots for everything this does not recognize.
///
/// It reads only while the connection has sent nothing but requests it recognizes (``PlainRequestHead``) for
/// the identifier route, each complete within one read. The first bytes it does not take, it hands to NIO's
/// decoder at a request's first byte, with whatever follows, and leaves the pipeline for good, so that the
/// decoder never sees a stream cut in the middle. Answers leave in the order the requests came.
final class IdentifierWireHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let snapshots: IdentifierSnapshots
    private let metrics: ServiceMetrics
    private let serverName: String
    private let lifetime: ConnectionLifetimeHandler
    /// Whether answers were written since the last flush: they leave together at the end of the read.
    private var unflushed = false
    private var date = HTTPDate()
    /// `Date` and `Server` as header lines, rebuilt when the date's text changes (once a second at most).
    private var dateText = ""
    private var dateLines = ByteBuffer()

    init(snapshots: IdentifierSnapshots, metrics: ServiceMetrics, serverName: String,
         lifetime: ConnectionLifetimeHandler) {
        self.snapshots = snapshots
        self.metrics = metrics
        self.serverName = serverName
        self.lifetime = lifetime
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        while bytes.readableBytes > 0 {
            let recognized = bytes.withUnsafeReadableBytes { readable -> (PlainRequestHead, Int)? in
                guard let length = PlainRequestHead.length(in: readable),
                      let head = PlainRequestHead(UnsafeRawBufferPointer(rebasing: readable[..<length]))
                else { return nil }
                return (head, length)
            }
            guard let (request, length) = recognized, snapshots.isLoaded,
                  let (bundleID, type) = IdentifierRoute.match(target: request.target)
            else { return handOn(bytes, context: context) }
            bytes.moveReaderIndex(forwardBy: length)
            answer(request, bundleID, type, context: context)
            if request.close {
                context.flush()
                context.close(promise: nil)
                return
            }
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        flushAnswers(context)
        context.fireChannelReadComplete()
    }

    /// Gives `bytes` (from a request's first byte on) to the decoder, and every later read too.
    private func handOn(_ bytes: ByteBuffer, context: ChannelHandlerContext) {
        flushAnswers(context)
        context.fireChannelRead(wrapInboundOut(bytes))
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    private func flushAnswers(_ context: ChannelHandlerContext) {
        if unflushed {
            unflushed = false
            context.flush()
        }
    }

    private func answer(_ request: PlainRequestHead, _ bundleID: Substring, _ type: PurchaseType?,
                        context: ChannelHandlerContext) {
        let clock = ContinuousClock()
        let start = clock.now
        let answer = IdentifierAnswer(snapshots, bundleID: bundleID, type: type, ifNoneMatch: request.ifNoneMatch)
        let now = date.now
        if now != dateText {
            dateText = now
            dateLines = ByteBuffer(string: "Date: \(now)\r\nServer: \(serverName)\r\n")
        }
        let body = request.isHead ? nil : answer.body
        // The whole answer in one buffer, one write: the same fields in the same order as the other paths
        // (IdentifierAnswer.forEachHeader), most of them precomputed with the snapshot.
        var bytes = context.channel.allocator.buffer(
            capacity: 32 + dateLines.readableBytes + answer.headerLines.readableBytes + (body?.readableBytes ?? 0))
        switch answer.status {
        case .ok: bytes.writeStaticString("HTTP/1.1 200 OK\r\n")
        case .notModified: bytes.writeStaticString("HTTP/1.1 304 Not Modified\r\n")
        case .notFound: bytes.writeStaticString("HTTP/1.1 404 Not Found\r\n")
        }
        bytes.writeImmutableBuffer(dateLines)
        bytes.writeImmutableBuffer(answer.headerLines)
        bytes.writeStaticString("\r\n")
        if let body { bytes.writeImmutableBuffer(body) }
        context.write(wrapOutboundOut(bytes), promise: nil)
        unflushed = true
        lifetime.recordActivity()
        metrics.request(route: IdentifierRoute.pattern, method: request.isHead ? .head : .get,
                        status: answer.httpStatus, duration: clock.now - start)
    }
}
