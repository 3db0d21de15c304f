import CatalogCore
import Foundation
import HTTPTypes
import Hummingbird

/// Gives every request an id: the caller's `X-Request-Id` when it is a sane token, otherwise a new one.
/// The id is echoed in the response, logged, and written into the history events the request causes.
struct RequestIDMiddleware<Context: RequestContext>: RouterMiddleware {
    static var headerName: HTTPField.Name { HTTPField.Name("X-Request-Id")! }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let requestID = request.headers[Self.headerName].flatMap(Self.accepted) ?? UUID.random().lowercaseText
        var response = try await RequestScope.$requestID.withValue(requestID) {
            try await next(request, context)
        }
        response.headers[Self.headerName] = requestID
        return response
    }

    /// A caller's id is kept only if it is short and plain, so that logs and history cannot be polluted.
    private static func accepted(_ value: String) -> String? {
        guard (1...64).contains(value.count),
              value.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.:".contains($0)) })
        else { return nil }
        return value
    }
}
