/// The rules every text field shares: a length in Unicode scalars, and no NUL (PostgreSQL text cannot hold it).
public enum TextRules {
    /// What breaks the rules in `value`: its length outside `length`, a NUL; the problems never quote the value.
    public static func problems(_ value: String, field: String, length: ClosedRange<Int>) -> [FieldProblem] {
        var problems: [FieldProblem] = []
        let count = value.unicodeScalars.count
        if count < length.lowerBound {
            problems.append(FieldProblem(
                field: field, rule: "minLength",
                message: length.lowerBound == 1
                    ? "must not be empty" : "\(characters(count)), at least \(length.lowerBound)"))
        } else if count > length.upperBound {
            problems.append(FieldProblem(field: field, rule: "maxLength",
                                         message: "\(characters(count)), at most \(length.upperBound)"))
        }
        if value.unicodeScalars.contains("\u{0}") {
            problems.append(FieldProblem(field: field, rule: "noNul", message: "must not contain NUL characters"))
        }
        return problems
    }

    private static func characters(_ count: Int) -> String { count == 1 ? "1 character" : "\(count) characters" }

    /// Whether every scalar of `value` is an ASCII letter, digit or one of `extra`.
    static func isASCIIAlphanumeric(_ value: String, or extra: Set<Character>) -> Bool {
        value.allSatisfy { ($0.isASCII && ($0.isLetter || $0.isNumber)) || extra.contains($0) }
    }
}
