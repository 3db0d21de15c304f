import CatalogAPI

/// Problem details (RFC 9457) as a person reads them: the title and detail as one sentence, then each field
/// at fault, each missing item, each conflicting product, or the state and the actions allowed from it, one per
/// line.
struct ProblemReport {
    let problem: Components.Schemas.Problem
    let statusCode: Int

    init(_ problem: Components.Schemas.Problem, statusCode: Int) {
        self.problem = problem
        self.statusCode = statusCode
    }

    /// The last part of `type` (`urn:problem:iap-catalog:<kind>`).
    var kind: String { problem._type.split(separator: ":").last.map(String.init) ?? problem._type }

    var failure: CommandFailure {
        let items = (problem.errors ?? []) + (problem.missing ?? [])
        var message = problem.title
        if items.isEmpty, let detail = problem.detail, !detail.isEmpty { message += ": " + detail }
        var details = items.map { "\($0.field): \($0.message)" }
        // A StoreKit import's conflicts: each product of the file, where it is and why.
        details += (problem.conflicts ?? []).map { "\($0.path) \($0.productId): \($0.reason)" }
        if kind == "invalid-transition" || problem.allowedActions != nil {
            if let state = problem.state { details.append("state: \(state.rawValue)") }
            let allowed = (problem.allowedActions ?? []).map { ActionName.command(for: $0) }
            details.append(allowed.isEmpty ? "allowed now: nothing your key's role may do"
                                           : "allowed now: \(allowed.joined(separator: ", "))")
        } else if let state = problem.state {
            details.append("state: \(state.rawValue)")
        }
        return CommandFailure(ExitStatus(httpStatus: statusCode), message, details: details, hint: hint)
    }

    private var hint: String? {
        switch statusCode {
        case 401: "check the API key: it may be wrong, revoked or expired; run: admin-cli login"
        case 403: "your key's role may not do this; see it with: admin-cli status"
        case 412: "the product changed since you read it: show it again and retry with its current version"
        case 429: "slow down: the server limits each key's requests per second; retry in a moment"
        case 500...: problem.requestId.map { "request id \($0): quote it when you report this" }
        default: kind == "product-incomplete" ? "add what is missing with: admin-cli products edit" : nil
        }
    }
}
