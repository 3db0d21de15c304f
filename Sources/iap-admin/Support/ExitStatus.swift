/// The exit codes of `admin-cli`, one per kind of outcome a script may want to tell apart. The numbers
/// follow BSD's sysexits.h (64 usage, 65 data, 66 no input, 69 unavailable, 70 software, 77 permission,
/// 78 configuration); 67 is ours for "the catalog refused": a conflict, a refused action or invalid data.
enum ExitStatus: Int32, CaseIterable, Sendable {
    case success = 0
    /// `catalog plan`: the plan has changes to apply (creates, updates or deletions), for CI.
    case changesPending = 2
    /// Unknown command or option, a missing or malformed argument (ArgumentParser's `ValidationError`).
    case usage = 64
    /// An input file that cannot be read, is not JSON, or is not of the expected shape; an output file that
    /// cannot be written.
    case badInput = 65
    /// The app, product, group or key does not exist (or the key may not see it): 404.
    case notFound = 66
    /// The catalog refused: 409 (an action not allowed now, a conflict), 412 (stale `--if-match`), 422
    /// (invalid or incomplete data); a history chain that does not verify.
    case refused = 67
    /// The server cannot be reached, is not the IAP Catalog API (a wrong URL), or is unavailable (503).
    case unavailable = 69
    /// Any other server error.
    case serverError = 70
    /// No key, a wrong, revoked or expired key (401), or a role that may not do this (403).
    case notAuthorized = 77
    /// The configuration file cannot be read or written, or names no such profile.
    case configuration = 78

    /// What it means, for the help text and the docs (in lines short enough for a terminal).
    var meaning: String {
        switch self {
        case .success: "success"
        case .changesPending: "catalog plan: changes are pending (the file differs from the catalog)"
        case .usage: "usage: unknown command or option, missing or invalid argument"
        case .badInput: "bad input file: unreadable, not JSON, or not the expected shape; or an\noutput file that cannot be written"
        case .notFound: "not found (HTTP 404)"
        case .refused: "refused: action not allowed now or conflict (409), stale --if-match\n(412), invalid or incomplete data (422); a broken history chain"
        case .unavailable: "server unreachable, not the IAP Catalog API (wrong URL), or\nunavailable (503)"
        case .serverError: "other server error"
        case .notAuthorized: "not authorized: no key, or a wrong, revoked or expired one (401), or\na role that may not do this (403)"
        case .configuration: "configuration: config file unreadable or unwritable, or no such profile"
        }
    }

    /// The status for an HTTP error status the server answered.
    init(httpStatus: Int) {
        switch httpStatus {
        case 401, 403: self = .notAuthorized
        case 404: self = .notFound
        case 409, 412, 422, 428: self = .refused
        case 413: self = .badInput
        case 429, 502, 503, 504: self = .unavailable
        default: self = .serverError
        }
    }
}
