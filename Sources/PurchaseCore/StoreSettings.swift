import CatalogCore
import Foundation

/// What verification uses for one app (DESIGN.md "Purchases": per app, `GET/PUT …/store-settings`).
///
/// The shared secret is write-only: it is read by the verification worker and never answered, logged or
/// exported. Its `description` and mirror leave it out, so that printing settings cannot leak it.
public struct StoreSettings: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The app's Apple ID in App Store Connect.
    public var appAppleId: Int64?
    /// verifyReceipt's app-specific shared secret.
    public var sharedSecret: AppStoreSharedSecret?
    /// The chain-verified environments accepted, from Production and Sandbox.
    public var environments: Set<AppStoreEnvironment>
    /// Whether Xcode-signed transactions (local StoreKit testing) are accepted; recorded as Xcode, never Production.
    public var acceptXcode: Bool
    /// The `manyStoreAccounts` signal's N: an account whose purchases come from more than this many App Store
    /// accounts (distinct `appTransactionId`s) within the window raises it.
    public var manyStoreAccountsLimit: Int
    /// The `manyStoreAccounts` signal's window, in hours, ending at each purchase.
    public var manyStoreAccountsWindowHours: Int
    /// Grows with every change; 0 for an app that has only the defaults.
    public var version: Int
    public var updatedAt: Date?

    public init(appAppleId: Int64? = nil, sharedSecret: AppStoreSharedSecret? = nil,
                environments: Set<AppStoreEnvironment> = StoreSettings.defaultEnvironments, acceptXcode: Bool = false,
                manyStoreAccountsLimit: Int = StoreSettings.defaultManyStoreAccountsLimit,
                manyStoreAccountsWindowHours: Int = StoreSettings.defaultManyStoreAccountsWindowHours,
                version: Int = 0, updatedAt: Date? = nil) {
        self.appAppleId = appAppleId
        self.sharedSecret = sharedSecret
        self.environments = environments
        self.acceptXcode = acceptXcode
        self.manyStoreAccountsLimit = manyStoreAccountsLimit
        self.manyStoreAccountsWindowHours = manyStoreAccountsWindowHours
        self.version = version
        self.updatedAt = updatedAt
    }

    /// An app never configured: Production and Sandbox, no Xcode, no shared secret.
    public static let defaults = StoreSettings()
    public static let defaultEnvironments: Set<AppStoreEnvironment> = [.production, .sandbox]
    /// The environments an app may list (Xcode has a switch of its own).
    public static let listableEnvironments: Set<AppStoreEnvironment> = [.production, .sandbox]
    /// The longest shared secret kept (Apple's are 32 hex digits).
    public static let sharedSecretLimit = 256
    /// The App Store's app identifiers: positive, and exact in a JSON number (2^53 − 1 at most).
    public static let appAppleIdRange: ClosedRange<Int64> = 1...9_007_199_254_740_991
    /// More App Store accounts than this behind one account's purchases within the window is irregular: a family
    /// shares a device or two, a reseller or a stolen-card ring many more.
    public static let defaultManyStoreAccountsLimit = 3
    /// 30 days.
    public static let defaultManyStoreAccountsWindowHours = 720
    public static let manyStoreAccountsLimitRange = 1...1000
    /// An hour to a leap year.
    public static let manyStoreAccountsWindowHoursRange = 1...8784

    /// Whether `environment` is accepted for this app.
    public func accepts(_ environment: AppStoreEnvironment) -> Bool {
        switch environment {
        case .production, .sandbox: environments.contains(environment)
        case .xcode, .localTesting: acceptXcode
        }
    }

    /// The settings `update` asks for: a field left out takes its default, except the shared secret, which is
    /// kept unless replaced or cleared. Throws every problem found.
    public func replaced(by update: StoreSettingsUpdate) throws(CatalogError) -> StoreSettings {
        var problems: [FieldProblem] = []
        if let secret = update.sharedSecret?.text {
            if update.clearSharedSecret {
                problems.append(FieldProblem(field: "clearSharedSecret", rule: "exclusive",
                                             message: "cannot clear the shared secret while setting one"))
            }
            if secret.isEmpty || secret.count > Self.sharedSecretLimit
                || !secret.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) }) {
                problems.append(FieldProblem(field: "sharedSecret", rule: "pattern",
                                             message: "must be 1 to \(Self.sharedSecretLimit) printable ASCII characters without spaces"))
            }
        }
        if let appAppleId = update.appAppleId, !Self.appAppleIdRange.contains(appAppleId) {
            problems.append(FieldProblem(field: "appAppleId", rule: "range",
                                         message: "must be between 1 and \(Self.appAppleIdRange.upperBound)"))
        }
        if let limit = update.manyStoreAccountsLimit, !Self.manyStoreAccountsLimitRange.contains(limit) {
            problems.append(FieldProblem(field: "manyStoreAccountsLimit", rule: "range",
                                         message: "must be between \(Self.manyStoreAccountsLimitRange.lowerBound) and \(Self.manyStoreAccountsLimitRange.upperBound)"))
        }
        if let hours = update.manyStoreAccountsWindowHours, !Self.manyStoreAccountsWindowHoursRange.contains(hours) {
            problems.append(FieldProblem(field: "manyStoreAccountsWindowHours", rule: "range",
                                         message: "must be between \(Self.manyStoreAccountsWindowHoursRange.lowerBound) and \(Self.manyStoreAccountsWindowHoursRange.upperBound) hours"))
        }
        if let environments = update.environments {
            if environments.isEmpty {
                problems.append(FieldProblem(field: "environments", rule: "minItems", message: "must name at least one environment"))
            }
            for (index, environment) in environments.enumerated() where !Self.listableEnvironments.contains(environment) {
                problems.append(FieldProblem(field: "environments[\(index)]", rule: "enum",
                                             message: "must be Production or Sandbox (Xcode has acceptXcode)"))
            }
            if Set(environments).count != environments.count {
                problems.append(FieldProblem(field: "environments", rule: "uniqueItems", message: "must not repeat an environment"))
            }
        }
        guard problems.isEmpty else { throw .validationFailed(problems) }
        return StoreSettings(
            appAppleId: update.appAppleId,
            sharedSecret: update.clearSharedSecret ? nil : update.sharedSecret ?? sharedSecret,
            environments: update.environments.map(Set.init) ?? Self.defaultEnvironments,
            acceptXcode: update.acceptXcode ?? false,
            manyStoreAccountsLimit: update.manyStoreAccountsLimit ?? Self.defaultManyStoreAccountsLimit,
            manyStoreAccountsWindowHours: update.manyStoreAccountsWindowHours ?? Self.defaultManyStoreAccountsWindowHours,
            version: version + 1, updatedAt: updatedAt)
    }

    /// What history records of a change from `old` to these settings: each field that changed, and the shared
    /// secret only as `set`, `changed` or `removed`, never its value.
    public func historyChanges(from old: StoreSettings) -> [FieldChange] {
        var changes: [FieldChange?] = []
        if appAppleId != old.appAppleId {
            changes.append(FieldChange(field: "appAppleId", old: old.appAppleId, new: appAppleId))
        }
        if environments != old.environments {
            changes.append(FieldChange(field: "environments", old: old.sortedEnvironments, new: sortedEnvironments))
        }
        if acceptXcode != old.acceptXcode {
            changes.append(FieldChange(field: "acceptXcode", old: old.acceptXcode, new: acceptXcode))
        }
        if manyStoreAccountsLimit != old.manyStoreAccountsLimit {
            changes.append(FieldChange(field: "manyStoreAccountsLimit", old: old.manyStoreAccountsLimit,
                                       new: manyStoreAccountsLimit))
        }
        if manyStoreAccountsWindowHours != old.manyStoreAccountsWindowHours {
            changes.append(FieldChange(field: "manyStoreAccountsWindowHours", old: old.manyStoreAccountsWindowHours,
                                       new: manyStoreAccountsWindowHours))
        }
        switch (old.sharedSecret, sharedSecret) {
        case (nil, .some): changes.append(FieldChange(field: "sharedSecret", old: nil, new: "set"))
        case (.some, nil): changes.append(FieldChange(field: "sharedSecret", old: nil, new: "removed"))
        case (.some(let before), .some(let after)) where before != after:
            changes.append(FieldChange(field: "sharedSecret", old: nil, new: "changed"))
        default: break
        }
        return changes.compactMap { $0 }
    }

    /// The environments in Apple's order (Production first).
    public var sortedEnvironments: [String] {
        AppStoreEnvironment.allCases.filter(environments.contains).map(\.rawValue)
    }

    public var description: String {
        "StoreSettings(appAppleId: \(appAppleId.map(String.init) ?? "none"), sharedSecretSet: \(sharedSecret != nil), "
            + "environments: \(sortedEnvironments), acceptXcode: \(acceptXcode), "
            + "manyStoreAccounts: more than \(manyStoreAccountsLimit) in \(manyStoreAccountsWindowHours) h, version: \(version))"
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror {
        Mirror(self, children: ["appAppleId": appAppleId as Any, "sharedSecretSet": sharedSecret != nil,
                                "environments": sortedEnvironments, "acceptXcode": acceptXcode,
                                "manyStoreAccountsLimit": manyStoreAccountsLimit,
                                "manyStoreAccountsWindowHours": manyStoreAccountsWindowHours, "version": version])
    }
}

/// A replacement of an app's store settings, as `PUT …/store-settings` asks for it.
public struct StoreSettingsUpdate: Sendable, Hashable {
    public var appAppleId: Int64?
    public var sharedSecret: AppStoreSharedSecret?
    public var clearSharedSecret: Bool
    public var environments: [AppStoreEnvironment]?
    public var acceptXcode: Bool?
    public var manyStoreAccountsLimit: Int?
    public var manyStoreAccountsWindowHours: Int?

    public init(appAppleId: Int64? = nil, sharedSecret: AppStoreSharedSecret? = nil, clearSharedSecret: Bool = false,
                environments: [AppStoreEnvironment]? = nil, acceptXcode: Bool? = nil,
                manyStoreAccountsLimit: Int? = nil, manyStoreAccountsWindowHours: Int? = nil) {
        self.appAppleId = appAppleId
        self.sharedSecret = sharedSecret
        self.clearSharedSecret = clearSharedSecret
        self.environments = environments
        self.acceptXcode = acceptXcode
        self.manyStoreAccountsLimit = manyStoreAccountsLimit
        self.manyStoreAccountsWindowHours = manyStoreAccountsWindowHours
    }
}
