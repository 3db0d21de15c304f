import Foundation

/// An API key as the catalog knows it (never its token, of which only a hash is kept).
public struct APIKey: Sendable, Hashable {
    public let id: UUID
    public let name: String
    public let role: KeyRole
    /// The apps the key is limited to; `nil` for every app.
    public let apps: Set<String>?
    public let createdAt: Date
    public let expiresAt: Date?
    public let revokedAt: Date?

    public init(id: UUID, name: String, role: KeyRole, apps: Set<String>?, createdAt: Date, expiresAt: Date?,
                revokedAt: Date?) {
        self.id = id
        self.name = name
        self.role = role
        self.apps = apps
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.revokedAt = revokedAt
    }

    /// Outside its apps a key sees nothing at all.
    public func canSee(app bundleID: String) -> Bool { apps?.contains(bundleID) ?? true }

    /// Whether everything `other` may reach, this key may reach too: a key may only hand out what it has.
    public func covers(apps other: Set<String>?) -> Bool {
        guard let apps else { return true }
        guard let other else { return false }
        return other.isSubset(of: apps)
    }

    /// Who this key is, for history.
    public var actor: Actor { Actor(keyID: id, name: name, role: role) }

    /// Checks a new key's name and apps, throwing every problem found. A `client` key ships inside an app and
    /// must be limited to exactly one.
    public static func validate(name: String, apps: [String]?, role: KeyRole) throws(CatalogError) {
        var problems = TextRules.problems(name, field: "name", length: Limits.keyName)
        if role.needsExactlyOneApp, apps?.count != 1 {
            problems.append(FieldProblem(field: "apps", rule: "exactlyOne",
                                         message: "a \(role.rawValue) key must be limited to exactly one app"))
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
        guard problems.isEmpty else { throw .validationFailed(problems) }
    }
}

extension APIKey {
    /// What history records about a key when it is created or revoked: who it is, never its token.
    public var historyFields: [FieldChange] {
        [
            FieldChange(field: "keyId", old: nil, new: id),
            FieldChange(field: "name", old: nil, new: name),
            FieldChange(field: "role", old: nil, new: role),
            FieldChange(field: "apps", old: nil, new: apps.map { $0.sorted() }),
        ].compactMap { $0 }
    }
}
