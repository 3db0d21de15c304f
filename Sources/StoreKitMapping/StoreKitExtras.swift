import StoreKitConfiguration

/// One localization of a file as the catalog keeps it beside its own localizations: how the file spells the
/// locale, where it stood, what the catalog does not model, and, for one the catalog did not take (blank
/// texts), all of it.
struct LocalizationExtras: Equatable {
    /// As the file writes it (`en_US`).
    var locale: String
    /// Whether it became a catalog localization.
    var imported: Bool
    /// Imported: the members the catalog does not model (a group localization's `description`, unknown keys).
    /// Not imported: the whole localization, as the file had it.
    var object: StoreKitJSONObject

    var json: StoreKitJSON {
        ["locale": .string(locale), "imported": .bool(imported), "object": .object(object)]
    }

    init(locale: String, imported: Bool, object: StoreKitJSONObject) {
        self.locale = locale
        self.imported = imported
        self.object = object
    }

    init?(json: StoreKitJSON) {
        guard let locale = json["locale"]?.stringValue, let imported = json["imported"]?.boolValue,
              let object = json["object"]?.objectValue
        else { return nil }
        self.init(locale: locale, imported: imported, object: object)
    }
}

/// What the catalog keeps of a file's product beyond its own fields (the `storekit` column), so that an export
/// gives back what the file said: its internal id, its offers other than the introductory one, billing plans,
/// keys nobody knows yet, the spelling and order of its localizations and its `groupNumber`.
struct ProductExtras: Equatable {
    /// The product's index in its array of the file, for the export's order.
    var position: Int
    /// The file's object without the members the catalog owns.
    var object: StoreKitJSONObject
    var localizations: [LocalizationExtras]
    /// A subscription's `groupNumber` as the file wrote it, and the level the catalog gave it (they differ
    /// when the file has ties, which catalog levels cannot).
    var groupNumber: Int?
    var level: Int?
    /// A repaired reference name: the file's value (`null`, or a name the file gives several groups' subscriptions)
    /// and the catalog's, so that the export writes the file's again while the catalog keeps the repair.
    var fileReferenceName: StoreKitJSON?
    var repairedReferenceName: String?

    /// The members of a product object that the catalog owns and writes itself on export.
    static let catalogKeys: Set<String> = [
        "displayPrice", "familyShareable", "groupNumber", "localizations", "productID", "recurringSubscriptionPeriod",
        "referenceName", "subscriptionGroupID", "type",
    ]

    var text: String {
        var json: StoreKitJSONObject = [
            "position": .integer(position), "object": .object(object), "localizations": .array(localizations.map(\.json)),
        ]
        json["groupNumber"] = groupNumber.map { .integer($0) }
        json["level"] = level.map { .integer($0) }
        json["referenceName"] = fileReferenceName
        json["repairedReferenceName"] = repairedReferenceName.map { .string($0) }
        return XcodeJSONWriter.compactString(for: .object(json))
    }

    init(position: Int, object: StoreKitJSONObject, localizations: [LocalizationExtras], groupNumber: Int?,
         level: Int?, fileReferenceName: StoreKitJSON? = nil, repairedReferenceName: String? = nil) {
        self.position = position
        self.object = object
        self.localizations = localizations
        self.groupNumber = groupNumber
        self.level = level
        self.fileReferenceName = fileReferenceName
        self.repairedReferenceName = repairedReferenceName
    }

    init?(text: String?) {
        guard let text, let json = try? StoreKitJSON(parsing: text), let position = json["position"]?.intValue,
              let object = json["object"]?.objectValue, let localizations = json["localizations"]?.arrayValue
        else { return nil }
        self.init(position: position, object: object, localizations: localizations.compactMap(LocalizationExtras.init),
                  groupNumber: json["groupNumber"]?.intValue, level: json["level"]?.intValue,
                  fileReferenceName: json["referenceName"], repairedReferenceName: json["repairedReferenceName"]?.stringValue)
    }
}

/// What the catalog keeps of a file's subscription group beyond its reference name and localized names.
struct GroupExtras: Equatable {
    var position: Int
    /// The file's object without `name`, `localizations` and `subscriptions`: its `id` and unknown keys.
    var object: StoreKitJSONObject
    var localizations: [LocalizationExtras]

    static let catalogKeys: Set<String> = ["localizations", "name", "subscriptions"]

    /// The group's id in the file, which its subscriptions' `subscriptionGroupID` repeat.
    var fileID: String? { object["id"]?.stringValue }

    var text: String {
        XcodeJSONWriter.compactString(for: [
            "position": .integer(position), "object": .object(object), "localizations": .array(localizations.map(\.json)),
        ])
    }

    init(position: Int, object: StoreKitJSONObject, localizations: [LocalizationExtras]) {
        self.position = position
        self.object = object
        self.localizations = localizations
    }

    init?(text: String?) {
        guard let text, let json = try? StoreKitJSON(parsing: text), let position = json["position"]?.intValue,
              let object = json["object"]?.objectValue, let localizations = json["localizations"]?.arrayValue
        else { return nil }
        self.init(position: position, object: object, localizations: localizations.compactMap(LocalizationExtras.init))
    }
}

/// What the catalog keeps of a whole file (per app, from its latest import): everything but the products and
/// groups, that is its identifier, version, settings, app policies, offer signing key and unknown keys.
struct DocumentExtras: Equatable {
    var document: StoreKitJSONObject
    /// Whether the file had a `nonRenewingSubscriptions` array (format 1.0 files do not).
    var hasNonRenewingSubscriptions: Bool

    static let catalogKeys: Set<String> = ["nonRenewingSubscriptions", "products", "subscriptionGroups"]

    var text: String {
        XcodeJSONWriter.compactString(for: [
            "document": .object(document), "nonRenewingSubscriptions": .bool(hasNonRenewingSubscriptions),
        ])
    }

    init(document: StoreKitJSONObject, hasNonRenewingSubscriptions: Bool) {
        self.document = document
        self.hasNonRenewingSubscriptions = hasNonRenewingSubscriptions
    }

    init?(text: String?) {
        guard let text, let json = try? StoreKitJSON(parsing: text), let document = json["document"]?.objectValue
        else { return nil }
        self.init(document: document, hasNonRenewingSubscriptions: json["nonRenewingSubscriptions"]?.boolValue ?? true)
    }
}

extension StoreKitJSONObject {
    /// A copy without the members named in `keys`.
    func removing(_ keys: Set<String>) -> StoreKitJSONObject {
        StoreKitJSONObject(filter { !keys.contains($0.key) }.map { ($0.key, $0.value) })
    }
}
