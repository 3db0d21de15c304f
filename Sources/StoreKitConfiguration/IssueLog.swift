/// Collects validation issues while a document is read, so that one pass
/// reports every problem instead of stopping at the first.
final class IssueLog {
    private(set) var issues: [StoreKitValidationIssue] = []

    func add(_ message: String, at path: StoreKitJSONPath) {
        issues.append(StoreKitValidationIssue(path: path, message: message))
    }

    func typeMismatch(expected: String, found value: StoreKitJSON, at path: StoreKitJSONPath) {
        add("expected \(expected), found \(value.kindDescription)", at: path)
    }
}
