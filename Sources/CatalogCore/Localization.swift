/// What customers read about a product in one locale.
public struct Localization: Sendable, Hashable, Codable {
    /// BCP 47, e.g. `en-US`.
    public var locale: String
    /// 2–30 characters.
    public var displayName: String
    /// 1–45 characters; 1–55 for an auto-renewable subscription.
    public var description: String

    public init(locale: String, displayName: String, description: String) {
        self.locale = locale
        self.displayName = displayName
        self.description = description
    }

    func problems(field: String, of type: PurchaseType) -> [FieldProblem] {
        Identifiers.localeProblems(locale, field: "\(field).locale")
            + TextRules.problems(displayName, field: "\(field).displayName", length: Limits.displayName)
            + TextRules.problems(description, field: "\(field).description", length: type.descriptionLength)
    }
}
