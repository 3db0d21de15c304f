import CatalogCore

/// The document's rules for query parameters that the generated layer does not check (lengths and
/// patterns of text filters). A filter that breaks its rule is refused with 422, as a body field would be,
/// rather than answered with an empty page as if it had been read.
enum QueryParameterRules {
    /// Refuses with 422 when any of `problems` holds.
    static func require(_ problems: [FieldProblem]...) throws(CatalogError) {
        let all = problems.flatMap { $0 }
        guard all.isEmpty else { throw .validationFailed(all) }
    }

    /// `value`, if given, has a length (in Unicode scalars, as the document counts) within `lengths`.
    static func text(_ value: String?, _ field: String, _ lengths: ClosedRange<Int>) -> [FieldProblem] {
        guard let value, !lengths.contains(value.unicodeScalars.count) else { return [] }
        return [FieldProblem(field: field, rule: "length",
                             message: "must be \(lengths.lowerBound)–\(lengths.upperBound) characters")]
    }

    static func bundleID(_ value: String?, _ field: String) -> [FieldProblem] {
        value.map { Identifiers.bundleIDProblems($0, field: field) } ?? []
    }

    static func productID(_ value: String?, _ field: String) -> [FieldProblem] {
        value.map { Identifiers.productIDProblems($0, field: field) } ?? []
    }
}
