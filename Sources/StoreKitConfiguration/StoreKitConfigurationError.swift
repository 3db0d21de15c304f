/// Why a document could not be read as a StoreKit configuration.
public enum StoreKitConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bytes are not JSON.
    case syntax(StoreKitJSONSyntaxError)
    /// The JSON breaks the format; holds every problem found, not only the first.
    case invalid([StoreKitValidationIssue])

    /// The format problems; empty for a syntax error.
    public var issues: [StoreKitValidationIssue] {
        if case .invalid(let issues) = self { issues } else { [] }
    }

    public var description: String {
        switch self {
        case .syntax(let error):
            return "not valid JSON: \(error)"
        case .invalid(let issues):
            let heading = issues.count == 1 ? "1 problem" : "\(issues.count) problems"
            return ([heading + " in the StoreKit configuration:"] + issues.map { "- \($0)" })
                .joined(separator: "\n")
        }
    }
}
