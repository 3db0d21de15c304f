import Foundation

/// A receiver of the history's events (DESIGN.md "Events and webhooks"): its URL, which events it wants (by
/// app and by kind; `nil`: all), and where its deliveries stand. Its secret is kept apart
/// (``WebhookSecret``) and never part of this value.
public struct WebhookEndpoint: Sendable, Hashable {
    public let id: UUID
    public let url: WebhookURL
    /// The apps whose events it gets; `nil`: every event, those outside any app (keys, webhooks) included.
    public let apps: Set<String>?
    /// The kinds of events it gets; `nil`: every kind.
    public let kinds: Set<HistoryKind>?
    public let createdAt: Date
    /// Every event numbered up to this has been delivered, or is not one this endpoint gets.
    public let deliveredThrough: Int64
    /// While the next event fails: when its first attempt failed, how many attempts failed, and when the next
    /// is due.
    public let failingSince: Date?
    public let failedAttempts: Int
    public let nextAttemptAt: Date?
    /// When and why deliveries stopped (an event failed for the whole retry window); `nil` while active.
    public let disabledAt: Date?
    public let disabledReason: String?

    public init(id: UUID, url: WebhookURL, apps: Set<String>?, kinds: Set<HistoryKind>?, createdAt: Date,
                deliveredThrough: Int64, failingSince: Date? = nil, failedAttempts: Int = 0,
                nextAttemptAt: Date? = nil, disabledAt: Date? = nil, disabledReason: String? = nil) {
        self.id = id
        self.url = url
        self.apps = apps
        self.kinds = kinds
        self.createdAt = createdAt
        self.deliveredThrough = deliveredThrough
        self.failingSince = failingSince
        self.failedAttempts = failedAttempts
        self.nextAttemptAt = nextAttemptAt
        self.disabledAt = disabledAt
        self.disabledReason = disabledReason
    }

    /// At most this many endpoints exist at once: each is followed by a delivery task of a server.
    public static let maximumCount = 100

    /// Checks a new endpoint's URL, apps and kinds (the addresses its host may reach are the policy's, judged
    /// with what the name resolves to), throwing every problem found.
    public static func validate(url: String, apps: [String]?, kinds: [String]?) throws(CatalogError) -> WebhookURL? {
        var problems: [FieldProblem] = []
        var parsed: WebhookURL?
        do {
            parsed = try WebhookURL(url)
        } catch {
            if case .validationFailed(let found) = error { problems += found }
        }
        if let apps {
            if apps.isEmpty {
                problems.append(FieldProblem(field: "apps", rule: "minItems",
                                             message: "must name at least one app; leave it out for every app"))
            }
            for (index, app) in apps.enumerated() {
                problems += Identifiers.bundleIDProblems(app, field: "apps[\(index)]")
            }
        }
        if let kinds {
            if kinds.isEmpty {
                problems.append(FieldProblem(field: "kinds", rule: "minItems",
                                             message: "must name at least one kind; leave it out for every kind"))
            }
            for (index, kind) in kinds.enumerated() where HistoryKind(rawValue: kind) == nil {
                problems.append(FieldProblem(field: "kinds[\(index)]", rule: "value", message: "is not a kind of event"))
            }
        }
        guard problems.isEmpty else { throw .validationFailed(problems) }
        return parsed
    }

    /// Whether an event of `kind` in `app` (`nil`: outside any app) is one this endpoint gets.
    public func wants(kind: HistoryKind, app: String?) -> Bool {
        if let kinds, !kinds.contains(kind) { return false }
        guard let apps else { return true }
        return app.map(apps.contains) ?? false
    }

    /// What history records about an endpoint: its id, where it is (never the path or query, which may hold a
    /// receiver's token, nor the secret), its filters.
    public var historyFields: [FieldChange] {
        [
            FieldChange(field: "webhookId", old: nil, new: id),
            FieldChange(field: "origin", old: nil, new: url.origin),
            FieldChange(field: "apps", old: nil, new: apps.map { $0.sorted() }),
            FieldChange(field: "kinds", old: nil, new: kinds.map { $0.map(\.rawValue).sorted() }),
        ].compactMap { $0 }
    }
}
