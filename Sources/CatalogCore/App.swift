import Foundation

/// An app whose in-app purchases the catalog holds.
public struct App: Sendable, Hashable {
    /// Reverse-DNS, never changes.
    public let bundleID: String
    public var name: String
    /// Newsstand apps alone may offer a free subscription.
    public var newsstand: Bool
    /// Every product needs a localization in this locale before developer approval.
    public var primaryLocale: String
    public var createdAt: Date
    public var updatedAt: Date

    /// The locale an app gets when none is given.
    public static let defaultPrimaryLocale = "en-US"

    public init(bundleID: String, name: String, newsstand: Bool = false,
                primaryLocale: String = App.defaultPrimaryLocale, createdAt: Date = Date(), updatedAt: Date = Date()) {
        self.bundleID = bundleID
        self.name = name
        self.newsstand = newsstand
        self.primaryLocale = primaryLocale
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// Every rule the app's fields break.
    public var problems: [FieldProblem] {
        Identifiers.bundleIDProblems(bundleID)
            + TextRules.problems(name, field: "name", length: Limits.appName)
            + Identifiers.localeProblems(primaryLocale, field: "primaryLocale")
    }

    /// Checks the app, throwing every problem found.
    public func validated() throws(CatalogError) -> App {
        let problems = problems
        guard problems.isEmpty else { throw .validationFailed(problems) }
        return self
    }
}

/// A change to an app: fields left `nil` stay as they are.
public struct AppEdit: Sendable, Hashable {
    public var name: String?
    public var newsstand: Bool?
    public var primaryLocale: String?

    public init(name: String? = nil, newsstand: Bool? = nil, primaryLocale: String? = nil) {
        self.name = name
        self.newsstand = newsstand
        self.primaryLocale = primaryLocale
    }

    /// The app with this edit applied and the fields that changed. Turning `newsstand` off while the app
    /// has a free subscription is refused: that product could not exist in the app any more.
    public func applied(to app: App, hasFreeSubscription: Bool) throws(CatalogError) -> (App, [FieldChange]) {
        var edited = app
        if let name { edited.name = name }
        if let newsstand { edited.newsstand = newsstand }
        if let primaryLocale { edited.primaryLocale = primaryLocale }
        edited = try edited.validated()
        if app.newsstand && !edited.newsstand && hasFreeSubscription {
            throw .conflict("newsstand cannot be turned off while the app has a free subscription")
        }
        let changes = [
            FieldChange(field: "name", old: app.name, new: edited.name),
            FieldChange(field: "newsstand", old: app.newsstand, new: edited.newsstand),
            FieldChange(field: "primaryLocale", old: app.primaryLocale, new: edited.primaryLocale),
        ].compactMap { $0 }
        return (edited, changes)
    }
}
