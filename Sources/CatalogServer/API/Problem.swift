import CatalogAPI
import CatalogCore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// An error as the API answers it: RFC 9457 problem details with a stable `type` per kind of error.
///
/// Only this layer knows HTTP: the core and the store throw their own typed errors, and
/// ``Problem/init(error:)`` maps each to its problem.
struct Problem: Error, Sendable {
    /// The kind, the last part of `type` (`urn:problem:iap-catalog:<kind>`).
    let kind: String
    let status: HTTPResponse.Status
    let title: String
    var detail: String?
    var errors: [FieldProblem]?
    var missing: [FieldProblem]?
    var state: ReviewState?
    var allowedActions: [ReviewAction]?
    /// With a StoreKit import's `conflict`: the file's products that conflict with the catalog.
    var conflicts: [Conflict]?
    /// With `invalid-proof`: the stable name of the rule the signed data broke.
    var reason: String?
    /// With `catalog-changed` and `plan-refused`: the plan of the catalog file as it stands now.
    var plan: Components.Schemas.CatalogPlan?
    /// Extra response headers (`Retry-After`, `WWW-Authenticate`).
    var headers: HTTPFields = [:]

    static let typePrefix = "urn:problem:iap-catalog:"

    /// A product of an imported file that conflicts with the catalog (`StoreKitImportConflict`).
    struct Conflict: Encodable, Sendable {
        let path: String
        let productId: String
        let reason: String
    }

    init(_ kind: String, _ status: HTTPResponse.Status, _ title: String, detail: String? = nil) {
        self.kind = kind
        self.status = status
        self.title = title
        self.detail = detail
    }

    /// The body, as its JSON shape in the OpenAPI document (`Problem`).
    private struct Body: Encodable {
        let type: String
        let title: String
        let status: Int
        let detail: String?
        let requestId: String?
        let errors: [FieldProblem]?
        let missing: [FieldProblem]?
        let state: String?
        let allowedActions: [String]?
        let conflicts: [Conflict]?
        let reason: String?
        let plan: Components.Schemas.CatalogPlan?
    }

    /// The response, with the request id for support.
    func response(requestID: String?) -> Response {
        let body = Body(type: Self.typePrefix + kind, title: title, status: Int(status.code), detail: detail,
                        requestId: requestID, errors: errors, missing: missing, state: state?.rawValue,
                        allowedActions: allowedActions?.map(\.rawValue), conflicts: conflicts, reason: reason,
                        plan: plan)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(body)) ?? Data("{\"type\":\"\(Self.typePrefix)internal\"}".utf8)
        var fields = headers
        fields[.contentType] = "application/problem+json"
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}

extension Problem {
    static func validation(_ problems: [FieldProblem]) -> Problem {
        var problem = Problem("validation-failed", .unprocessableContent, "The request is not valid",
                              detail: problems.map(\.description).joined(separator: "; "))
        problem.errors = problems
        return problem
    }

    static func unauthorized(_ detail: String) -> Problem {
        var problem = Problem("unauthorized", .unauthorized, "A valid API key is required", detail: detail)
        problem.headers[.wwwAuthenticate] = "Bearer"
        return problem
    }

    static func notFound(_ detail: String) -> Problem {
        Problem("not-found", .notFound, "Not found", detail: detail)
    }

    static func unavailable(_ detail: String) -> Problem {
        var problem = Problem("service-unavailable", .serviceUnavailable, "The service is unavailable, retry shortly",
                              detail: detail)
        problem.headers[.retryAfter] = "2"
        return problem
    }

    /// A request body over `limit` bytes.
    static func payloadTooLarge(limit: Int) -> Problem {
        Problem("payload-too-large", .contentTooLarge, "The request body is too large", detail: "at most \(limit) bytes")
    }

    static let internalError = Problem("internal", .internalServerError, "Something went wrong on our side",
                                       detail: "The error was logged with the request id.")
}
