import CatalogCore
import Foundation
import Hummingbird
import NIOCore

/// Refuses, with 422 naming the member, a JSON body that holds `null`. No member of the document is nullable,
/// and the generated layer reads a `null` member as an absent one: `{"primaryLocale": null}` in an edit would
/// pass as "leave it unchanged" instead of being refused as the wrong type. Only JSON bodies are checked: a
/// StoreKit file (Xcode writes `null`s) is sent as `application/octet-stream`.
struct NullValueMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        guard ContentTypeHeader.isJSON(request.headers[.contentType]) else {
            return try await next(request, context)
        }
        var request = request
        let body = try await request.body.collect(upTo: BodyLimit.of(request))
        if Self.mayHoldNull(body), let path = Self.nullPath(in: Data(body.readableBytesView)) {
            throw Problem.validation([FieldProblem(field: path, rule: "type",
                                                   message: "must not be null (leave it out to keep it unchanged)")])
        }
        request.body = RequestBody(buffer: body)
        return try await next(request, context)
    }

    /// Whether `body` has an `n` outside every string: in valid JSON, only a `null` starts so. A quick pass
    /// that lets the rare body with one pay for the parse that finds where it is. It runs over every JSON body,
    /// a signed transaction's 4 KB among them, so it reads the buffer's bytes in place.
    static func mayHoldNull(_ body: ByteBuffer) -> Bool {
        body.withUnsafeReadableBytes { bytes in
            var index = 0
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\""):
                    // To the string's closing quote, over each escaped character.
                    index += 1
                    while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                        index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
                    }
                case UInt8(ascii: "n"):
                    return true
                default:
                    break
                }
                index += 1
            }
            return false
        }
    }

    /// The JSON path of the first `null` in `data` (`localizations[0].description`), or `nil` if there is none
    /// or `data` is not JSON (which the layers after this one refuse).
    static func nullPath(in data: Data) -> String? {
        guard let value = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else { return nil }
        func find(_ value: Any, _ path: String) -> String? {
            switch value {
            case is NSNull:
                return path.isEmpty ? "body" : path
            case let object as [String: Any]:
                for key in object.keys.sorted() {
                    if let found = find(object[key]!, path.isEmpty ? key : "\(path).\(key)") { return found }
                }
                return nil
            case let array as [Any]:
                for (index, element) in array.enumerated() {
                    if let found = find(element, "\(path)[\(index)]") { return found }
                }
                return nil
            default:
                return nil
            }
        }
        return find(value, "")
    }
}
