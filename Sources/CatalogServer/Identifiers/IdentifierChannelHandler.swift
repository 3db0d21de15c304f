import CatalogCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import NIOCore
import NIOHTTPTypes

/// Answers the identifier route (as ``IdentifierFastPath`` does) on the connection's event loop, as the
/// request's head is read: no task, no hop to Swift concurrency's threads and back, no router. On the hot path
/// of every client app's launch, that hop is most of the cost of an answer held in memory.
///
/// It sits in the channel's pipeline after Hummingbird's connection state handler, so that idle timeouts and
/// graceful shutdown count these requests as any other. Responses leave in the order requests came: while a
/// request handed on to the application has not been answered, later ones are handed on too (and answered by
/// ``IdentifierFastPath`` from the same snapshots), so that a pipelined request never overtakes another.
final class IdentifierChannelHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let snapshots: IdentifierSnapshots
    private let metrics: ServiceMetrics
    private let serverName: String
    /// Requests handed on to the application whose response has not ended yet.
    private var handedOn = 0
    /// Whether the rest of the request being read (its body, its end) was answered here already.
    private var answered = false
    private var date = HTTPDate()

    init(snapshots: IdentifierSnapshots, metrics: ServiceMetrics, serverName: String) {
        self.snapshots = snapshots
        self.metrics = metrics
        self.serverName = serverName
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            if handedOn == 0, head.method == .get || head.method == .head, snapshots.isLoaded,
               let path = head.path, let (bundleID, type) = IdentifierRoute.match(URI(path))
            {
                answered = true
                answer(head, bundleID, type, context: context)
            } else {
                handedOn += 1
                context.fireChannelRead(data)
            }
        case .body, .end:
            if !answered { context.fireChannelRead(data) }
            if case .end = unwrapInboundIn(data) { answered = false }
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { handedOn -= 1 }
        context.write(data, promise: promise)
    }

    private func answer(_ request: HTTPRequest, _ bundleID: Substring, _ type: PurchaseType?,
                        context: ChannelHandlerContext) {
        let clock = ContinuousClock()
        let start = clock.now
        var response = HTTPResponse(status: .ok)
        response.headerFields[.date] = date.now
        response.headerFields[.server] = serverName
        var body: ByteBuffer?
        if let snapshot = snapshots.answer(bundleID, type: type) {
            response.headerFields[.eTag] = snapshot.eTag
            response.headerFields[.cacheControl] = IdentifierRoute.cacheControl
            if let ifNoneMatch = request.headerFields[.ifNoneMatch], IdentifierRoute.matches(ifNoneMatch, snapshot.eTag) {
                response.status = .notModified
            } else {
                response.headerFields[.contentType] = "application/json"
                response.headerFields[.contentLength] = String(snapshot.body.readableBytes)
                body = snapshot.body
            }
        } else {
            response.status = .notFound
            response.headerFields[.contentType] = "application/json"
            response.headerFields[.contentLength] = String(IdentifierSnapshots.appNotFound.readableBytes)
            body = IdentifierSnapshots.appNotFound
        }
        // The state handler before this one sees the response as any other: it ends the request it counted.
        context.write(wrapOutboundOut(.head(response)), promise: nil)
        if let body, request.method == .get { context.write(wrapOutboundOut(.body(body)), promise: nil) }
        let closing = request.headerFields[.connection]?.lowercased().contains("close") == true
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        if closing { context.close(promise: nil) }
        metrics.request(route: IdentifierRoute.pattern, method: request.method, status: response.status,
                        duration: clock.now - start)
    }
}

/// The `Date` header's value (RFC 9110 IMF-fixdate), formatted once a second.
struct HTTPDate {
    private var second = 0
    private var text = ""

    var now: String {
        mutating get {
            var time = timespec()
            clock_gettime(CLOCK_REALTIME, &time)
            if time.tv_sec != second {
                second = time.tv_sec
                text = Self.format(second)
            }
            return text
        }
    }

    static func format(_ seconds: Int) -> String {
        var t = time_t(seconds)
        var parts = tm()
        gmtime_r(&t, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
