import CatalogCore
import HTTPTypes
import NIOCore

/// What the identifier route answers to one request, decided in one place for every path that answers it (the
/// wire handler, the channel handler, the fast path and the generated handler): 200 with the snapshot, 304 when
/// `If-None-Match` matches its ETag (``IdentifierRoute/matches(_:_:)``, the route's one rule), or 404 for an
/// unknown app.
struct IdentifierAnswer {
    enum Status { case ok, notModified, notFound }

    let status: Status
    /// The snapshot's strong ETag, quoted; `nil` for an unknown app.
    let eTag: String?
    /// The JSON body of a `GET` (a `HEAD` sends its length only); `nil` for 304.
    let body: ByteBuffer?
    /// The identifiers `body` lists, for the generated handler, which encodes them itself; empty for 404.
    let identifiers: [String]
    /// The header lines after `Date` and `Server` (``forEachRepresentationHeader``), as bytes, each ending in
    /// CRLF: precomputed with the snapshot, so that the wire path copies them instead of writing each field.
    let headerLines: ByteBuffer

    init(_ snapshots: IdentifierSnapshots, bundleID: Substring, type: PurchaseType?, ifNoneMatch: String?) {
        guard let snapshot = snapshots.answer(bundleID, type: type) else {
            self.init(status: .notFound, eTag: nil, body: IdentifierSnapshots.appNotFound, identifiers: [],
                      headerLines: Self.notFoundHeaderLines)
            return
        }
        if let ifNoneMatch, IdentifierRoute.matches(ifNoneMatch, snapshot.eTag) {
            self.init(status: .notModified, eTag: snapshot.eTag, body: nil, identifiers: snapshot.identifiers,
                      headerLines: snapshot.notModifiedHeaderLines)
        } else {
            self.init(status: .ok, eTag: snapshot.eTag, body: snapshot.body, identifiers: snapshot.identifiers,
                      headerLines: snapshot.headerLines)
        }
    }

    /// The response's header fields, in the order both event-loop paths write them: `Date` and `Server`, the
    /// ETag and caching rule of a known app, and the body's type and length when there is one (a `HEAD` gives
    /// the length its `GET` would have).
    func forEachHeader(date: String, server: String, _ write: (String, String) -> Void) {
        write("Date", date)
        write("Server", server)
        Self.forEachRepresentationHeader(eTag: eTag, bodyLength: body?.readableBytes, write)
    }

    /// The fields that follow `Date` and `Server`: the ETag and caching rule of a known app, and the body's
    /// type and length when there is one.
    static func forEachRepresentationHeader(eTag: String?, bodyLength: Int?, _ write: (String, String) -> Void) {
        if let eTag {
            write("ETag", eTag)
            write("Cache-Control", IdentifierRoute.cacheControl)
        }
        if let bodyLength {
            write("Content-Type", "application/json")
            write("Content-Length", String(bodyLength))
        }
    }

    /// ``forEachRepresentationHeader`` as header lines.
    static func headerLines(eTag: String?, bodyLength: Int?) -> ByteBuffer {
        var lines = ByteBuffer()
        forEachRepresentationHeader(eTag: eTag, bodyLength: bodyLength) { name, value in
            lines.writeString(name)
            lines.writeStaticString(": ")
            lines.writeString(value)
            lines.writeStaticString("\r\n")
        }
        return lines
    }

    private static let notFoundHeaderLines = headerLines(
        eTag: nil, bodyLength: IdentifierSnapshots.appNotFound.readableBytes)

    /// The status as HTTP says it.
    var httpStatus: HTTPResponse.Status {
        switch status {
        case .ok: .ok
        case .notModified: .notModified
        case .notFound: .notFound
        }
    }

    private init(status: Status, eTag: String?, body: ByteBuffer?, identifiers: [String], headerLines: ByteBuffer) {
        self.status = status
        self.eTag = eTag
        self.body = body
        self.identifiers = identifiers
        self.headerLines = headerLines
    }
}
