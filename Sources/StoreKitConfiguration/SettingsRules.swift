/// Checks the `settings` object, which the model keeps as raw JSON.
///
/// Settings are Xcode's test-session toggles; the catalog has no use for them
/// beyond the round trip, but a hand-written file that puts a string date in
/// `_lastSynchronizedDate` or a string in `_timeRate` is still not the format.
/// Only the keys real files use are checked; others are kept as they are.
enum SettingsRules {
    private enum Kind {
        case string, bool, integer, number, integerMap, storeKitErrors
    }

    private static let kinds: [String: Kind] = [
        "_storefront": .string,
        "_locale": .string,
        "_applicationInternalID": .string,
        "_developerTeamID": .string,
        "_timeRate": .integer,
        "_storeKitError": .integer,
        "_lastSynchronizedDate": .number,
        "_askToBuyEnabled": .bool,
        "_billingIssuesEnabled": .bool,
        "_failTransactionsEnabled": .bool,
        "_billingGracePeriodEnabled": .bool,
        "_renewalBillingIssuesEnabled": .bool,
        "_disableDialogs": .bool,
        "_shouldSetupSyncOnLoad": .bool,
        "_compatibilityTimeRate": .integerMap,
        "_storeKitErrors": .storeKitErrors,
    ]

    /// The settings unchanged, or `nil` after logging what is wrong with them.
    static func read(_ value: StoreKitJSON, at path: StoreKitJSONPath, log: IssueLog) -> StoreKitJSON? {
        let issuesBefore = log.issues.count
        guard let object = Expect.object(value, at: path, log: log) else { return nil }
        ObjectReader.reportLookAlikeKeys(in: object, at: path, knownKeys: Array(kinds.keys), log: log)
        for (key, member) in object {
            guard let kind = kinds[key] else { continue }
            check(member, as: kind, at: path.appending(key), log: log)
        }
        return log.issues.count == issuesBefore ? value : nil
    }

    private static func check(_ value: StoreKitJSON, as kind: Kind, at path: StoreKitJSONPath, log: IssueLog) {
        switch kind {
        case .string: _ = Expect.string(value, at: path, log: log)
        case .bool: _ = Expect.bool(value, at: path, log: log)
        case .integer: _ = Expect.integer(value, at: path, log: log)
        case .number: _ = Expect.number(value, at: path, log: log)
        case .integerMap:
            guard let object = Expect.object(value, at: path, log: log) else { return }
            for (key, member) in object {
                _ = Expect.integer(member, at: path.appending(key), log: log)
            }
        case .storeKitErrors:
            _ = Expect.array(of: readStoreKitError)(value, path, log)
        }
    }

    /// `{ "current": null | { "index": 4, "type": "generic" }, "enabled": false, "name": "Purchase" }`.
    private static func readStoreKitError(_ value: StoreKitJSON, at path: StoreKitJSONPath, log: IssueLog) -> StoreKitJSON? {
        let issuesBefore = log.issues.count
        guard let reader = ObjectReader(value, at: path, log: log, modeledKeys: ["current", "enabled", "name"])
        else { return nil }
        _ = reader.optional("enabled", Expect.bool)
        _ = reader.optional("name", Expect.string)
        if let current = reader.object["current"], !current.isNull {
            let currentPath = path.appending("current")
            if let currentReader = ObjectReader(current, at: currentPath, log: log, modeledKeys: ["index", "type"]) {
                _ = currentReader.optional("index", Expect.integer)
                _ = currentReader.optional("type", Expect.string)
            }
        }
        return log.issues.count == issuesBefore ? value : nil
    }
}
