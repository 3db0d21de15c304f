import CatalogCore
@testable import CatalogServer
@testable import CatalogStore
import NIOCore
import NIOEmbedded
import Testing

/// The wire handler alone on a connection (an embedded channel): the bytes it answers with, and the bytes it
/// leaves to NIO's decoder, untouched and in order.
@Suite("Identifier answers from the wire")
struct IdentifierWireTests {
    private static let body = #"{"bundleId":"com.wire.app","productIdentifiers":["coins"]}"#

    private let snapshots = {
        let snapshots = IdentifierSnapshots()
        snapshots.replaceAll(["com.wire.app": [OnSaleProduct(productID: "coins", type: .consumable)]])
        return snapshots
    }()

    private func connection(loaded: Bool = true) throws -> EmbeddedChannel {
        let snapshots = loaded ? snapshots : IdentifierSnapshots()
        let channel = EmbeddedChannel(handler: IdentifierWireHandler(
            snapshots: snapshots, metrics: ServiceMetrics(pool: nil, snapshots: snapshots), serverName: "iap-catalog",
            lifetime: ConnectionLifetimeHandler(timeout: .seconds(60))))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080)).wait()
        return channel
    }

    /// Everything written to the socket so far, with the `Date` header's value replaced by `<date>`.
    private func written(_ channel: EmbeddedChannel) throws -> String {
        var text = ""
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) { text += String(buffer: buffer) }
        return text.replacing(/Date: [A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT/, with: "Date: <date>")
    }

    /// Everything handed on to the decoder so far.
    private func handedOn(_ channel: EmbeddedChannel) throws -> String {
        var text = ""
        while let buffer = try channel.readInbound(as: ByteBuffer.self) { text += String(buffer: buffer) }
        return text
    }

    private func isInPipeline(_ channel: EmbeddedChannel) -> Bool {
        (try? channel.pipeline.syncOperations.handler(type: IdentifierWireHandler.self)) != nil
    }

    @Test("GET, HEAD, 304 and 404 are answered with the documented bytes, pipelined ones in order")
    func answers() throws {
        let channel = try connection()
        let eTag = try #require(snapshots.answer("com.wire.app", type: nil)?.eTag)
        try channel.writeInbound(ByteBuffer(string:
            "GET /v1/apps/com.wire.app/product-identifiers HTTP/1.1\r\nHost: a\r\n\r\n"
            + "HEAD /v1/apps/com.wire.app/product-identifiers?type=CONSUMABLE HTTP/1.1\r\nHost: a\r\n\r\n"
            + "GET /v1/apps/com.wire.app/product-identifiers HTTP/1.1\r\nIf-None-Match: W/\(eTag)\r\n\r\n"
            + "GET /v1/apps/com.wire.none/product-identifiers HTTP/1.1\r\n\r\n"))
        let ok = "HTTP/1.1 200 OK\r\nDate: <date>\r\nServer: iap-catalog\r\nETag: \(eTag)\r\nCache-Control: no-cache\r\n"
            + "Content-Type: application/json\r\nContent-Length: \(Self.body.utf8.count)\r\n\r\n"
        let notModified = "HTTP/1.1 304 Not Modified\r\nDate: <date>\r\nServer: iap-catalog\r\nETag: \(eTag)\r\n"
            + "Cache-Control: no-cache\r\n\r\n"
        let notFound = "HTTP/1.1 404 Not Found\r\nDate: <date>\r\nServer: iap-catalog\r\nContent-Type: application/json\r\n"
            + "Content-Length: 25\r\n\r\n" + #"{"error":"app not found"}"#
        #expect(try written(channel) == ok + Self.body + ok + notModified + notFound)
        #expect(try handedOn(channel).isEmpty && isInPipeline(channel) && channel.isActive)
    }

    @Test("the first request it does not read goes to the decoder from its first byte, with all that follows")
    func handsOn() throws {
        let channel = try connection()
        let plain = "GET /v1/apps/com.wire.app/product-identifiers HTTP/1.1\r\n\r\n"
        let other = "GET /v1/apps/com.wire.app HTTP/1.1\r\nAuthorization: Bearer k\r\n\r\n"
        try channel.writeInbound(ByteBuffer(string: plain + other + plain))
        #expect(try written(channel).hasSuffix(Self.body))
        #expect(try handedOn(channel) == other + plain)
        #expect(!isInPipeline(channel))
        try channel.writeInbound(ByteBuffer(string: plain))
        #expect(try handedOn(channel) == plain && written(channel).isEmpty)
    }

    @Test("a request cut across reads, one with a body, or one before the snapshots load goes to the decoder",
          arguments: ["GET /v1/apps/com.wire.app/product-identifiers HTTP/1.1\r\nHost: a\r\n",
                      "GET /v1/apps/com.wire.app/product-identifiers HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}",
                      "GET /v1/apps/com.wire.app/product-identifiers%3F HTTP/1.1\r\n\r\n",
                      "GET /v1/apps/com.wire.app HTTP/1.1\r\n\r\n"])
    func refused(_ request: String) throws {
        let channel = try connection()
        try channel.writeInbound(ByteBuffer(string: request))
        #expect(try handedOn(channel) == request && written(channel).isEmpty && !isInPipeline(channel))
    }

    @Test("before the first load nothing is answered from memory")
    func notLoaded() throws {
        let channel = try connection(loaded: false)
        let request = "GET /v1/apps/com.wire.app/product-identifiers HTTP/1.1\r\n\r\n"
        try channel.writeInbound(ByteBuffer(string: request))
        #expect(try handedOn(channel) == request && written(channel).isEmpty)
    }

    @Test("Connection: close is answered, then the connection is closed and what follows is not read")
    func close() throws {
        let channel = try connection()
        try channel.writeInbound(ByteBuffer(string: "GET /v1/apps/com.wire.app/product-identifiers HTTP/1.1\r\n"
            + "Connection: close\r\n\r\nGET /v1/apps/com.wire.app/product-identifiers HTTP/1.1\r\n\r\n"))
        #expect(try written(channel).hasSuffix("\r\n\r\n" + Self.body))
        #expect(try handedOn(channel).isEmpty && !channel.isActive)
    }
}
