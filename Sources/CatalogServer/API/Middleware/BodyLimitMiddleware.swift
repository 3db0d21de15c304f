import Hummingbird
import NIOCore

/// Reads at most ``BodyLimit/of(_:)`` bytes of a request body, answering 413 beyond: the whole body is read
/// before any handler runs, so that an oversized request changes nothing and never reaches the database.
struct BodyLimitMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let limit = BodyLimit.of(request)
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit {
            throw Problem.payloadTooLarge(limit: limit)
        }
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: limit)
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            throw Problem.payloadTooLarge(limit: limit)
        }
        request.body = RequestBody(buffer: body)
        return try await next(request, context)
    }
}

/// How large a request body may be, by what it is: a JSON document of the API, or a file.
enum BodyLimit {
    /// 1 MiB: far above any catalog request (a full product is a few KiB).
    static let document = 1 << 20

    /// 32 MiB for a file (`application/octet-stream`, a StoreKit file; `application/yaml`, a catalog file;
    /// openapi.yaml): a file of 10,000 products with a few localizations each is about 6 MB, and App Store
    /// Connect allows 10,000 products per app. Sent to an operation that takes JSON, it is refused 415.
    static let file = 32 << 20

    /// The limit of `request`'s body: by its media type, and for the routes of purchases and accounts, the
    /// route's own (``PurchaseRoute/bodyLimit``: a receipt is at most 256 KiB, a notification 64 KiB, an
    /// account 16 KiB).
    static func of(_ request: Request) -> Int {
        if isFile(request.headers[.contentType]) { return file }
        return PurchaseRoute(request)?.bodyLimit ?? document
    }

    /// The media types of files, which the API takes as bytes.
    static let fileTypes = ["application/octet-stream", "application/yaml"]

    /// Whether `contentType` is a file's media type, parameters aside.
    static func isFile(_ contentType: String?) -> Bool {
        ContentTypeHeader.isOne(of: fileTypes, contentType)
    }
}
