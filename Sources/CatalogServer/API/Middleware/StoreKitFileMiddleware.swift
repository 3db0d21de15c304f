import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization

/// The bytes of a StoreKit configuration file on their way in (an import's body) or out (an export's body).
///
/// The generated OpenAPI layer decodes an `application/json` body into, and encodes one from, typed values or
/// untyped containers. A `.storekit` file must pass byte for byte instead: decoding one of 10,000 products
/// into containers costs seconds and loses what the file format cares about (number forms, duplicate keys,
/// Xcode's layout), and an export must be written exactly as Xcode writes it. So the file's routes hand the
/// bytes to their handlers, and back, through this, while the generated layer sees an empty JSON object.
final class StoreKitFileTransfer: Sendable {
    /// The body of an import, as the client sent it.
    let requestBody: ByteBuffer?
    private let response = Mutex<(body: ByteBuffer, headers: HTTPFields)?>(nil)

    init(requestBody: ByteBuffer?) {
        self.requestBody = requestBody
    }

    /// Hands an export's file to the middleware, which sends it as the response body, with `headers` as they
    /// are (the generated layer would percent-encode a header's `=`, `,` and spaces).
    func respond(with body: ByteBuffer, headers: HTTPFields) {
        response.withLock { $0 = (body, headers) }
    }

    var responseFile: (body: ByteBuffer, headers: HTTPFields)? { response.withLock { $0 } }

    /// The transfer of the request being handled, if it is on a StoreKit file route.
    @TaskLocal static var current: StoreKitFileTransfer?
}

/// Carries StoreKit files past the generated layer (see ``StoreKitFileTransfer``), for the import and the export
/// routes only.
struct StoreKitFileMiddleware<Context: RequestContext>: RouterMiddleware {
    /// An import's body may be up to 32 MiB: a file of 10,000 products with a few localizations each is about
    /// 5 MiB, and App Store Connect allows 10,000 products per app.
    static var fileLimit: Int { 32 << 20 }

    enum Route {
        case importFile, exportFile

        /// `POST /v1/apps/{bundleId}/import/storekit` or `GET /v1/apps/{bundleId}/export/storekit`.
        init?(_ request: Request) {
            // Every request asks this several times (body limit, null check, here): most answer at the suffix,
            // without splitting the path (the split was 2 % of the server's CPU under the actions benchmark).
            let path = request.uri.path
            guard path.hasSuffix("/storekit") else { return nil }
            let parts = path.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 6, parts[0].isEmpty, parts[1] == "v1", parts[2] == "apps", parts[5] == "storekit"
            else { return nil }
            switch (request.method, parts[4]) {
            case (.post, "import"): self = .importFile
            case (.get, "export"): self = .exportFile
            default: return nil
            }
        }
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        switch Route(request) {
        case .importFile:
            let body = try await request.body.collect(upTo: Self.fileLimit)
            var head = request.head
            head.headerFields[.contentLength] = "2"
            let placeholder = Request(head: head, body: RequestBody(buffer: ByteBuffer(string: "{}")))
            let transfer = StoreKitFileTransfer(requestBody: body)
            return try await StoreKitFileTransfer.$current.withValue(transfer) { try await next(placeholder, context) }
        case .exportFile:
            let transfer = StoreKitFileTransfer(requestBody: nil)
            var response = try await StoreKitFileTransfer.$current.withValue(transfer) { try await next(request, context) }
            if response.status == .ok, let file = transfer.responseFile {
                response.body = ResponseBody(byteBuffer: file.body)
                response.headers[.contentLength] = String(file.body.readableBytes)
                for field in file.headers { response.headers[field.name] = field.value }
            }
            return response
        case nil:
            return try await next(request, context)
        }
    }
}
