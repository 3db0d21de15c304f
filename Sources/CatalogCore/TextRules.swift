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

    /// Whether every character of `value` is an ASCII letter, digit or one of the ASCII `extra`. Read as bytes:
    /// every request names its app, and each byte of a character beyond ASCII is 0x80 or more.
    static func isASCIIAlphanumeric(_ value: String, or extra: String) -> Bool {
        value.utf8.allSatisfy { byte in
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || extra.utf8.contains(byte)
        }
    }
}
