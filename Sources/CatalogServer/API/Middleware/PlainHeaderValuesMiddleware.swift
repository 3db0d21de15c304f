import HTTPTypes
import OpenAPIRuntime

/// Sends the response header fields the operations declare with the values their handlers give them. The
/// generated layer writes each in OpenAPI's `simple` style, percent-encoding every byte but unreserved ones
/// and spaces: `Content-Disposition: attachment; filename="com.example.game.storekit"` would leave as
/// `attachment%3B%20filename%3D%22com.example.game.storekit%22`, which no browser or tool reads as the
/// header. The encoding is exactly undone here; the generated client decodes either form to the same value.
struct PlainHeaderValuesMiddleware: ServerMiddleware {
    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, metadata: ServerRequestMetadata, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var (response, responseBody) = try await next(request, body, metadata)
        for index in response.headerFields.indices {
            let field = response.headerFields[index]
            // Only the generated layer's fields are here. The one it does not percent-encode, the ETag
            // (declared as JSON), is digits or hex: a `%` is always the encoding's.
            guard field.value.utf8.contains(UInt8(ascii: "%")), let value = PercentDecoding.decoded(field.value)
            else { continue }
            response.headerFields[index] = HTTPField(name: field.name, value: value)
        }
        return (response, responseBody)
    }
}
