import Foundation

/// An Xcode StoreKit configuration file (`.storekit`), any format version from 1.0 to 6.3.
///
/// Read with ``init(data:)``; write with ``fileData()``, which produces the
/// bytes Xcode itself would write. The model is filled by which keys are
/// present, never by ``version``, and keeps every key it does not model, so
/// reading a file and writing it back loses nothing.
public struct StoreKitConfiguration: Sendable, Equatable {
    /// Eight uppercase hex digits; absent in format 1.0 files.
    public var identifier: String?
    /// Kept for the round trip; not a feature gate.
    public var version: StoreKitFormatVersion
    /// Xcode's test-session toggles, kept raw; `nil` when the key is absent,
    /// which some tool-written files do.
    public var settings: StoreKitJSON?
    /// Consumables and non-consumables.
    public var products: [StoreKitProduct]
    /// `nil` when the key is absent, as in format 1.0.
    public var nonRenewingSubscriptions: [StoreKitProduct]?
    public var subscriptionGroups: [StoreKitSubscriptionGroup]
    /// The promotional-offer signing key of formats 1.1 to 4.0; redacted in every description.
    public var subscriptionOffersKeyPair: StoreKitOffersKeyPair?
    /// The 4.0+ EULA and policy texts, kept raw.
    public var appPolicies: StoreKitJSON?
    /// Top-level members this type does not model (such as 6.3's
    /// `subscriptionBundleGroups` and `subscriptionSuiteGroups`), written back unchanged.
    public var unknownKeys: StoreKitJSONObject

    public init(
        identifier: String? = nil,
        version: StoreKitFormatVersion,
        settings: StoreKitJSON? = [:],
        products: [StoreKitProduct] = [],
        nonRenewingSubscriptions: [StoreKitProduct]? = [],
        subscriptionGroups: [StoreKitSubscriptionGroup] = [],
        subscriptionOffersKeyPair: StoreKitOffersKeyPair? = nil,
        appPolicies: StoreKitJSON? = nil,
        unknownKeys: StoreKitJSONObject = [:]
    ) {
        self.identifier = identifier
        self.version = version
        self.settings = settings
        self.products = products
        self.nonRenewingSubscriptions = nonRenewingSubscriptions
        self.subscriptionGroups = subscriptionGroups
        self.subscriptionOffersKeyPair = subscriptionOffersKeyPair
        self.appPolicies = appPolicies
        self.unknownKeys = unknownKeys
    }

    // MARK: Reading

    /// Reads the contents of a `.storekit` file.
    ///
    /// Throws ``StoreKitConfigurationError/syntax(_:)`` for bytes that are not
    /// JSON, and ``StoreKitConfigurationError/invalid(_:)`` with every problem
    /// found for JSON that is not the format.
    public init(data: some Collection<UInt8>) throws(StoreKitConfigurationError) {
        let json: StoreKitJSON
        do {
            json = try StoreKitJSON(parsing: data)
        } catch {
            throw .syntax(error)
        }
        try self.init(json: json)
    }

    /// Reads an already parsed `.storekit` document.
    public init(json: StoreKitJSON) throws(StoreKitConfigurationError) {
        let log = IssueLog()
        let configuration = Self.read(json, log: log)
        guard let configuration, log.issues.isEmpty else { throw .invalid(log.issues) }
        self = configuration
    }

    static let modeledKeys = [
        "appPolicies", "identifier", "nonRenewingSubscriptions", "products", "settings", "subscriptionGroups",
        "subscriptionOffersKeyPair", "version",
    ]

    private static func read(_ value: StoreKitJSON, log: IssueLog) -> StoreKitConfiguration? {
        guard
            let reader = ObjectReader(
                value, at: .root, log: log, modeledKeys: modeledKeys,
                otherKnownKeys: ["subscriptionBundleGroups", "subscriptionSuiteGroups"])
        else { return nil }
        let appPolicies = reader.optional("appPolicies", AppPoliciesRules.read)
        let identifier = reader.optional("identifier", Expect.string)
        let nonRenewingSubscriptions = reader.optional(
            "nonRenewingSubscriptions",
            Expect.array(of: StoreKitProduct.reading(allowed: [.nonRenewingSubscription])))
        let products = reader.required(
            "products", Expect.array(of: StoreKitProduct.reading(allowed: [.consumable, .nonConsumable])))
        let settings = reader.optional("settings", SettingsRules.read)
        let subscriptionGroups = reader.required(
            "subscriptionGroups", Expect.array(of: StoreKitSubscriptionGroup.read))
        let keyPair = reader.optional("subscriptionOffersKeyPair", StoreKitOffersKeyPair.read)
        let version = reader.required("version", StoreKitFormatVersion.read)
        reportDuplicates(in: reader.object, log: log)
        guard let products, let subscriptionGroups, let version, log.issues.isEmpty else { return nil }
        return StoreKitConfiguration(
            identifier: identifier, version: version, settings: settings, products: products,
            nonRenewingSubscriptions: nonRenewingSubscriptions, subscriptionGroups: subscriptionGroups,
            subscriptionOffersKeyPair: keyPair, appPolicies: appPolicies, unknownKeys: reader.unknownKeys)
    }

    /// Product ids must be unique across the whole file, whatever array they
    /// are in, and group ids across groups. Checked on the raw JSON so that a
    /// duplicate is reported even when its product has other problems.
    private static func reportDuplicates(in root: StoreKitJSONObject, log: IssueLog) {
        var productPaths: [(id: String, path: StoreKitJSONPath)] = []
        var groupPaths: [(id: String, path: StoreKitJSONPath)] = []
        for key in ["products", "nonRenewingSubscriptions"] {
            for (index, product) in (root[key]?.arrayValue ?? []).enumerated() {
                if let id = product["productID"]?.stringValue {
                    productPaths.append((id, StoreKitJSONPath.root.appending(key).appending(index)))
                }
            }
        }
        for (groupIndex, group) in (root["subscriptionGroups"]?.arrayValue ?? []).enumerated() {
            let groupPath = StoreKitJSONPath.root.appending("subscriptionGroups").appending(groupIndex)
            if let id = group["id"]?.stringValue {
                groupPaths.append((id, groupPath))
            }
            for (index, subscription) in (group["subscriptions"]?.arrayValue ?? []).enumerated() {
                if let id = subscription["productID"]?.stringValue {
                    productPaths.append((id, groupPath.appending("subscriptions").appending(index)))
                }
            }
        }
        reportDuplicates(productPaths, key: "productID", noun: "productID", log: log)
        reportDuplicates(groupPaths, key: "id", noun: "subscription group id", log: log)
    }

    private static func reportDuplicates(
        _ entries: [(id: String, path: StoreKitJSONPath)], key: String, noun: String, log: IssueLog
    ) {
        var firstPaths: [String: StoreKitJSONPath] = [:]
        for entry in entries {
            if let first = firstPaths[entry.id] {
                log.add(
                    "duplicate \(noun) \(XcodeJSONWriter.quoted(entry.id)) (first at \(first))",
                    at: entry.path.appending(key))
            } else {
                firstPaths[entry.id] = entry.path
            }
        }
    }

    // MARK: Writing

    /// The JSON for the whole file, keys in Xcode's order.
    public func jsonValue() -> StoreKitJSON {
        var object = unknownKeys
        object["appPolicies"] = appPolicies
        object["identifier"] = identifier.map { .string($0) }
        object["nonRenewingSubscriptions"] = nonRenewingSubscriptions.map { .array($0.map { $0.jsonValue() }) }
        object["products"] = .array(products.map { $0.jsonValue() })
        object["settings"] = settings
        object["subscriptionGroups"] = .array(subscriptionGroups.map { $0.jsonValue() })
        object["subscriptionOffersKeyPair"] = subscriptionOffersKeyPair?.jsonValue()
        object["version"] = version.jsonValue()
        return .object(object.sortedForXcode())
    }

    /// The file as Xcode writes it (see ``XcodeJSONWriter``).
    public func fileData() -> Data {
        XcodeJSONWriter.data(for: jsonValue())
    }

    /// The file text as Xcode writes it.
    public func fileText() -> String {
        XcodeJSONWriter.string(for: jsonValue())
    }

    /// The problems a reader would find in this configuration as it would be
    /// written; empty when it is valid. Use before exporting a model that was
    /// built or edited in code.
    public func validationIssues() -> [StoreKitValidationIssue] {
        let log = IssueLog()
        _ = Self.read(jsonValue(), log: log)
        return log.issues
    }
}
