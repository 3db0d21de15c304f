/// Checks the 4.0+ `appPolicies` object, which the model keeps as raw JSON:
/// `{ "eula": "", "policies": [ { "locale", "policyText", "policyURL" } ] }`.
enum AppPoliciesRules {
    /// The policies unchanged, or `nil` after logging what is wrong with them.
    static func read(_ value: StoreKitJSON, at path: StoreKitJSONPath, log: IssueLog) -> StoreKitJSON? {
        let issuesBefore = log.issues.count
        guard let reader = ObjectReader(value, at: path, log: log, modeledKeys: ["eula", "policies"]) else {
            return nil
        }
        _ = reader.optional("eula", Expect.string)
        _ = reader.optional("policies", Expect.array(of: readPolicy))
        return log.issues.count == issuesBefore ? value : nil
    }

    private static func readPolicy(_ value: StoreKitJSON, at path: StoreKitJSONPath, log: IssueLog) -> StoreKitJSON? {
        let issuesBefore = log.issues.count
        guard
            let reader = ObjectReader(
                value, at: path, log: log, modeledKeys: ["locale", "policyText", "policyURL"])
        else { return nil }
        _ = reader.optional("locale", Expect.string)
        _ = reader.optional("policyText", Expect.string)
        _ = reader.optional("policyURL", Expect.string)
        return log.issues.count == issuesBefore ? value : nil
    }
}
