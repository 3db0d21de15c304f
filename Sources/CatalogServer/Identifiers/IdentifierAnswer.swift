import CatalogCore
import HTTPTypes
import NIOCore

/// What the identifier route answers to one request, decided in one place for every path that answers it
/// from memory: 200 with the snapshot, 304 when `If-None-Match` matches its ETag, or 404 for an unknown app.
struct IdentifierAnswer {
    enum Status { case ok, notModified, notFound }

    let status: Status
    /// The snapshot's strong ETag, quoted; `nil` for an unknown app.
    let eTag: String?
    /// The JSON body of a `GET` (a `HEAD` sends its length only); `nil` for 304.
    let body: ByteBuffer?

    init(_ snapshots: IdentifierSnapshots, bundleID: Substring, type: PurchaseType?, ifNoneMatch: String?) {
        guard let snapshot = snapshots.answer(bundleID, type: type) else {
            self.init(status: .notFound, eTag: nil, body: IdentifierSnapshots.appNotFound)
            return
        }
        if let ifNoneMatch, IdentifierRoute.matches(ifNoneMatch, snapshot.eTag) {
            self.init(status: .notModified, eTag: snapshot.eTag, body: nil)
        } else {
            self.init(status: .ok, eTag: snapshot.eTag, body: snapshot.body)
        }
    }

    /// The response's header fields, in the order both event-loop paths write them: `Date` and `Server`, the
    /// ETag and caching rule of a known app, and the body's type and length when there is one (a `HEAD` gives
    /// the length its `GET` would have).
    func forEachHeader(date: String, server: String, _ write: (String, String) -> Void) {
        write("Date", date)
        write("Server", server)
        if let eTag {
            write("ETag", eTag)
            write("Cache-Control", IdentifierRoute.cacheControl)
        }
        if let body {
            write("Content-Type", "application/json")
            write("Content-Length", String(body.readableBytes))
        }
    }

    /// The status as HTTP says it.
    var httpStatus: HTTPResponse.Status {
        switch status {
        case .ok: .ok
        case .notModified: .notModified
        case .notFound: .notFound
        }
    }

    private init(status: Status, eTag: String?, body: ByteBuffer?) {
        self.status = status
        self.eTag = eTag
        self.body = body
    }
}
