import CatalogCore

/// Why bytes are not a catalog file. Problems of the catalog's rules (a name too long, an edit the product's
/// state refuses) are not here: the plan names those, at their path.
public enum CatalogFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not YAML (nor JSON) at all, or not UTF-8: where the reader stopped, and why.
    case syntax(line: Int?, column: Int?, message: String)
    /// YAML that is not a catalog file: every problem at its path (`products[2].price.amount`), each message ending
    /// with the line it is on.
    case invalid([FieldProblem])

    public var description: String {
        switch self {
        case .syntax(let line, let column, let message):
            "the file is not YAML\(line.map { " (line \($0)\(column.map { ", column \($0)" } ?? ""))" } ?? ""): \(message)"
        case .invalid(let problems):
            "the file is not a catalog file: " + problems.map(\.description).joined(separator: "; ")
        }
    }
}
