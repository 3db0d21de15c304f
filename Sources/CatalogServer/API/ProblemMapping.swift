import CatalogAPIConventions
import CatalogCore
import CatalogFiles
import CatalogStore
import Foundation
import HTTPTypes
import Hummingbird
import OpenAPIRuntime
import StoreKitMapping

extension Problem {
    /// The problem for any error a request can end in. Errors of our own map by kind; decoding errors name
    /// the field at fault; the generated layer's request errors keep their 4xx status; anything else is a 500
    /// whose details stay in the log, never in the answer.
    init(error: any Error) {
        switch error {
        case let problem as Problem:
            self = problem
        case let error as CatalogError:
            self = Problem(catalogError: error)
        case let error as Unauthenticated:
            self = .unauthorized(error.reason)
        case let error as StoreUnavailable:
            self = .unavailable(error.description)
        case let error as DecodingError:
            self = Problem(decodingError: error)
        case let error as InvalidTimestamp:
            self = .validation([FieldProblem(field: "timestamp", rule: "format", message: Self.sanitized(error.description))])
        case let error as StoreKitFileNotJSON:
            self = Problem("bad-request", .badRequest, "The file is not JSON", detail: error.syntaxProblem)
        case let error as CatalogFileError:
            self = Problem(catalogFileError: error)
        case let error as ServerError:
            self = Problem(serverError: error)
        case let error as any HTTPResponseError:
            self = Problem(status: error.status)
        default:
            self = .internalError
        }
    }

    /// Whether the error is ours to fix (a 5xx), so that it is logged as an error.
    var isServerFault: Bool { status.code >= 500 && kind != "service-unavailable" }

    /// A catalog file that is not YAML is a bad request (with where the reader stopped); YAML that is not a
    /// catalog file names every problem at its path.
    private init(catalogFileError: CatalogFileError) {
        switch catalogFileError {
        case .syntax:
            self = Problem("bad-request", .badRequest, "The file is not YAML", detail: Self.sanitized(catalogFileError.description))
        case .invalid(let problems):
            self = .validation(problems)
        }
    }

    private init(catalogError: CatalogError) {
        switch catalogError {
        case .validationFailed(let problems):
            self = .validation(problems)
        case .productIncomplete(let missing):
            self = Problem("product-incomplete", .unprocessableContent, "The product is not complete for approval",
                           detail: missing.map(\.description).joined(separator: "; "))
            self.missing = missing
        case .invalidTransition(let refusal):
            self = Problem("invalid-transition", .conflict, "The action is not allowed now", detail: refusal.detail)
            self.state = refusal.state
            self.allowedActions = refusal.allowedActions
        case .notFound(let what):
            self = .notFound(what)
        case .conflict(let detail, let state):
            self = Problem("conflict", .conflict, "The request conflicts with the catalog", detail: detail)
            self.state = state
        case .preconditionFailed(let current):
            self = Problem("precondition-failed", .preconditionFailed, "The resource changed since it was read",
                           detail: "If-Match does not match the current ETag \"\(current)\"; read it again")
        case .forbidden(let detail):
            self = Problem("forbidden", .forbidden, "The key's role may not do this", detail: detail)
        }
    }

    /// A body whose JSON is malformed is a bad request; JSON of the wrong shape names the field and the rule.
    private init(decodingError: DecodingError) {
        func path(_ codingPath: [any CodingKey], _ last: (any CodingKey)? = nil) -> String {
            let text = DecodingError.jsonPath(codingPath, last)
            return text.isEmpty ? "body" : text
        }
        switch decodingError {
        case .keyNotFound(let key, let context):
            self = .validation([FieldProblem(field: path(context.codingPath, key), rule: "required", message: "is required")])
        case .valueNotFound(_, let context):
            self = .validation([FieldProblem(field: path(context.codingPath), rule: "required", message: "must not be null")])
        case .typeMismatch(let type, let context):
            self = .validation([FieldProblem(field: path(context.codingPath), rule: "type",
                                             message: "expected \(Self.jsonTypeName(type))")])
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            self = Problem("bad-request", .badRequest, "The body is not valid JSON",
                           detail: "send a JSON object with Content-Type: application/json")
        case .dataCorrupted(let context) where decodingError.isUnknownMember:
            // A field a request does not have (a misspelt one would otherwise change nothing, silently).
            self = .validation([FieldProblem(field: path(context.codingPath), rule: "unknown",
                                             message: "is not a field of this request")])
        case .dataCorrupted(let context):
            self = .validation([FieldProblem(field: path(context.codingPath), rule: "value",
                                             message: Self.sanitized(context.debugDescription))])
        @unknown default:
            self = Problem("bad-request", .badRequest, "The request could not be read")
        }
    }

    /// Errors of the generated layer: a handler's own error inside, or a request it could not read.
    private init(serverError: ServerError) {
        let inner = serverError.underlyingError
        if let decodingError = inner as? DecodingError,
           let problem = Self.queryParameterProblem(decodingError, in: serverError.request) {
            self = problem
        } else if inner is CatalogError || inner is Unauthenticated || inner is StoreUnavailable || inner is Problem
            || inner is DecodingError || inner is StoreKitFileNotJSON || inner is InvalidTimestamp
            || inner is CatalogFileError {
            self = Problem(error: inner)
        } else if (400..<500).contains(serverError.httpStatus.code) {
            self = Problem(status: serverError.httpStatus, expecting: Self.expectedMediaType(serverError.causeDescription))
            self.detail = Self.sanitized(serverError.causeDescription)
        } else {
            self = .internalError
        }
    }

    /// A query parameter the generated layer could not read (a value outside its enum): its decoding error
    /// has no coding path and names the value, not the parameter (`Cannot initialize PurchaseType from invalid
    /// String value GOLD`), and would otherwise read as a body that is not JSON. The parameter is the one of
    /// the request's query that holds that value; `nil` when none does.
    private static func queryParameterProblem(_ error: DecodingError, in request: HTTPRequest) -> Problem? {
        guard case .dataCorrupted(let context) = error, context.codingPath.isEmpty,
              let query = request.path?.split(separator: "?", maxSplits: 1).dropFirst().first,
              let marker = context.debugDescription.range(of: " value ", options: .backwards)
        else { return nil }
        let value = context.debugDescription[marker.upperBound...]
        let name = query.split(separator: "&").lazy.compactMap { item -> Substring? in
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, parts[1].removingPercentEncoding.map({ $0 == value }) == true else { return nil }
            return parts[0]
        }.first
        guard let name else { return nil }
        return .validation([FieldProblem(field: String(name), rule: "value",
                                         message: "is not one of the values the API document lists")])
    }

    /// The media type the generated layer expected of a body it refused (`Unexpected content type, expected:
    /// application/octet-stream, received: …`), if that is what `cause` says.
    private static func expectedMediaType(_ cause: String) -> String? {
        guard cause.hasPrefix("Unexpected content type"), let start = cause.range(of: "expected: ") else { return nil }
        let expected = cause[start.upperBound...].prefix { $0 != "," && $0 != " " }
        return expected.isEmpty ? nil : String(expected)
    }

    /// A problem for a bare HTTP status; a 415 names the media type the operation takes, when known.
    init(status: HTTPResponse.Status, expecting mediaType: String? = nil) {
        if status == .unsupportedMediaType, let mediaType {
            self = Problem("unsupported-media-type", status, "Send the body as \(mediaType)")
            return
        }
        switch status.code {
        case 404: self = .notFound("no such route")
        case 405: self = Problem("method-not-allowed", status, "The method is not allowed here")
        case 406: self = Problem("not-acceptable", status, "The requested media type is not available")
        case 413: self = .payloadTooLarge(limit: BodyLimit.document)
        case 415: self = Problem("unsupported-media-type", status, "Send the body as application/json")
        case 400..<500: self = Problem("bad-request", status, "The request could not be read")
        case 503: self = .unavailable("retry shortly")
        default: self = .internalError
        }
    }

    private static func jsonTypeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is Int.Type, is Int64.Type, is Int32.Type, is Double.Type: "a number"
        default: String(describing: type).hasPrefix("Array") ? "an array" : "an object"
        }
    }

    /// Error descriptions of the layers below can be long; a caller needs the sentence, not the dump.
    private static func sanitized(_ text: String) -> String {
        String(text.prefix(300))
    }
}
