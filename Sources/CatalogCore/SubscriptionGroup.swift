import Foundation

/// A group of auto-renewable subscriptions of one app, among which a customer holds at most one at a time.
public struct SubscriptionGroup: Sendable, Hashable {
    /// A group's name in one locale, as customers see it.
    public struct Localization: Sendable, Hashable, Codable {
        public var locale: String
        public var name: String

        public init(locale: String, name: String) {
            self.locale = locale
            self.name = name
        }
    }

    public let id: UUID
    public let bundleID: String
    /// Internal, unique within the app.
    public var referenceName: String
    public var localizations: [Localization]
    public var createdAt: Date
    public var updatedAt: Date

    public init(id: UUID = UUID(), bundleID: String, referenceName: String, localizations: [Localization] = [],
                createdAt: Date = Date(), updatedAt: Date = Date()) {
        self.id = id
        self.bundleID = bundleID
        self.referenceName = referenceName
        self.localizations = localizations
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// Checks the group's fields, throwing every problem found.
    public func validated() throws(CatalogError) -> SubscriptionGroup {
        var problems = TextRules.problems(referenceName, field: "referenceName", length: Limits.groupReferenceName)
        if localizations.count > Limits.localizationsPerProduct {
            problems.append(FieldProblem(field: "localizations", rule: "maxItems",
                                         message: "at most \(Limits.localizationsPerProduct) localizations"))
        }
        var seen = Set<String>()
        for (index, localization) in localizations.enumerated() {
            let field = "localizations[\(index)]"
            problems += Identifiers.localeProblems(localization.locale, field: "\(field).locale")
            problems += TextRules.problems(localization.name, field: "\(field).name", length: Limits.groupDisplayName)
            if !seen.insert(localization.locale).inserted {
                problems.append(FieldProblem(field: "\(field).locale", rule: "unique",
                                             message: "\(localization.locale) appears twice"))
            }
        }
        guard problems.isEmpty else { throw .validationFailed(problems) }
        return self
    }

    /// The group's fields as changes from nothing: its `group_created` history event.
    public var creationChanges: [FieldChange] {
        [
            FieldChange(field: "id", old: nil, new: id),
            FieldChange(field: "referenceName", old: nil, new: referenceName),
            FieldChange(field: "localizations", old: nil, new: localizations),
        ].compactMap { $0 }
    }

    /// The group with `referenceName` and `localizations` replaced where given, and what changed.
    public func editing(referenceName: String?, localizations: [Localization]?) throws(CatalogError)
        -> (SubscriptionGroup, [FieldChange])
    {
        var edited = self
        if let referenceName { edited.referenceName = referenceName }
        if let localizations { edited.localizations = localizations }
        edited = try edited.validated()
        let changes = [
            FieldChange(field: "referenceName", old: self.referenceName, new: edited.referenceName),
            FieldChange(field: "localizations", old: self.localizations, new: edited.localizations),
        ].compactMap { $0 }
        return (edited, changes)
    }
}
