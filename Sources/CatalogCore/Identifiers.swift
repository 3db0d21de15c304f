/// The shapes of the identifiers the catalog accepts.
public enum Identifiers {
    /// A productId: 1–100 of `A–Z a–z 0–9 . _ -`.
    public static func productIDProblems(_ value: String, field: String = "productId") -> [FieldProblem] {
        guard Limits.productID.contains(value.unicodeScalars.count),
              TextRules.isASCIIAlphanumeric(value, or: "._-")
        else {
            return [FieldProblem(field: field, rule: "pattern",
                                 message: "must be 1–100 characters of A–Z a–z 0–9 . _ -")]
        }
        return []
    }

    /// A bundle id: 1–155 of `A–Z a–z 0–9 . -`, starting with a letter or digit.
    public static func bundleIDProblems(_ value: String, field: String = "bundleId") -> [FieldProblem] {
        guard Limits.bundleID.contains(value.unicodeScalars.count),
              let first = value.first, first.isASCII, first.isLetter || first.isNumber,
              TextRules.isASCIIAlphanumeric(value, or: ".-")
        else {
            return [FieldProblem(field: field, rule: "pattern",
                                 message: "must be 1–155 characters of A–Z a–z 0–9 . - starting with a letter or digit")]
        }
        return []
    }

    /// A BCP 47 tag of the shapes App Store Connect uses: `en`, `en-US`, `zh-Hans`, `zh-Hant-TW`, `es-419`.
    public static func localeProblems(_ value: String, field: String) -> [FieldProblem] {
        let parts = value.split(separator: "-", omittingEmptySubsequences: false)
        var valid = parts.count >= 1 && parts.count <= 3
        if valid {
            let language = parts[0]
            valid = (2...3).contains(language.count) && language.allSatisfy { $0.isASCII && $0.isLowercase }
            var rest = parts.dropFirst()
            if valid, let script = rest.first, script.count == 4 {
                valid = script.first!.isASCII && script.first!.isUppercase
                    && script.dropFirst().allSatisfy { $0.isASCII && $0.isLowercase }
                rest = rest.dropFirst()
            }
            if valid, let region = rest.first {
                valid = rest.count == 1
                    && ((region.count == 2 && region.allSatisfy { $0.isASCII && $0.isUppercase })
                        || (region.count == 3 && region.allSatisfy { $0.isASCII && $0.isNumber }))
            }
        }
        return valid ? [] : [FieldProblem(field: field, rule: "pattern",
                                          message: "\"\(value.prefix(40))\" is not a BCP 47 locale such as en-US or zh-Hans")]
    }

    /// Three uppercase ASCII letters: an ISO 4217 currency or an ISO 3166-1 alpha-3 territory.
    public static func threeLetterCodeProblems(_ value: String, field: String, what: String) -> [FieldProblem] {
        value.count == 3 && value.allSatisfy({ $0.isASCII && $0.isUppercase })
            ? [] : [FieldProblem(field: field, rule: "pattern", message: "must be an \(what) code of three uppercase letters")]
    }
}
