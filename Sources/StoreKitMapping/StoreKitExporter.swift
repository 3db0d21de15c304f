import CatalogCore
import Foundation
import StoreKitConfiguration

/// Which revision of the catalog an export writes.
public enum ExportRevision: String, Sendable, CaseIterable {
    /// What customers see: the products on sale, each from its live revision.
    case live
    /// What is being worked on: every product but rejected ones, each from its working revision.
    case draft
}

/// What an export reads of an app's catalog: its groups and products with what the catalog keeps of the
/// files they came from, and the app's latest imported file.
public struct ExportSource: Sendable {
    public struct Group: Sendable {
        public let group: SubscriptionGroup
        /// What the catalog keeps of the file's group (JSON), if it came from a file.
        public let storekit: String?

        public init(group: SubscriptionGroup, storekit: String?) {
            self.group = group
            self.storekit = storekit
        }
    }

    public struct Item: Sendable {
        public let product: Product
        /// What the catalog keeps of the file's product (JSON), if it came from a file.
        public let storekit: String?

        public init(product: Product, storekit: String?) {
            self.product = product
            self.storekit = storekit
        }
    }

    public let app: App
    public let groups: [Group]
    public let products: [Item]
    /// The app's latest imported file without its products and groups (JSON), if any.
    public let document: String?

    public init(app: App, groups: [Group], products: [Item], document: String?) {
        self.app = app
        self.groups = groups
        self.products = products
        self.document = document
    }
}

/// A StoreKit configuration file made from a catalog, and what it could not hold.
public struct StoreKitExport: Sendable {
    /// A product left out of the file, and why.
    public struct Skipped: Sendable, Hashable {
        public enum Reason: String, Sendable, CaseIterable {
            /// The format has no free subscription.
            case freeSubscription = "free-subscription"
            /// A file's product needs a price (only a draft can lack one).
            case noPrice = "no-price"
            /// An auto-renewable subscription without its group, level or duration (only a draft can).
            case incomplete
        }

        public let productID: String
        public let reason: Reason
    }

    /// The file, written as Xcode writes it.
    public let data: Data
    public let skipped: [Skipped]
    /// How many products and subscription groups the file holds.
    public let productCount: Int
    public let groupCount: Int
}

/// The file could not be made: a catalog value the format cannot hold slipped past the export's checks. A fault
/// of ours, never of the caller's.
public struct StoreKitExportFailure: Error, Sendable, CustomStringConvertible {
    public let issues: [StoreKitValidationIssue]
    public var description: String { "the exported file breaks the format: \(issues.map(\.description).joined(separator: "; "))" }
}

/// Writes an app's catalog as a StoreKit configuration file that Xcode opens for local testing.
///
/// The catalog's fields come from the revision asked for; what the catalog keeps of the files its products came
/// from (internal ids, other offers, billing plans, unknown keys, settings, the file's spelling and order of
/// localizations and its `groupNumber`) comes back as the file said it, so that importing a file and exporting
/// it gives the file back. Products the catalog made get ids derived from their productIds, so that the same
/// catalog always gives the same file.
public enum StoreKitExporter {
    public static func export(_ source: ExportSource, revision: ExportRevision) throws -> StoreKitExport {
        let documentExtras = DocumentExtras(text: source.document)
        var document = documentExtras?.document
            ?? StoreKitConfiguration.newFile(identifier: StableIdentifier.of("file \(source.app.bundleID)"))
                .jsonValue().objectValue?.removing(DocumentExtras.catalogKeys) ?? [:]
        let formatMajor = document["version"]?["major"]?.intValue ?? 4
        let writer = Writer(bundleID: source.app.bundleID, formatMajor: formatMajor)

        var groupFileIDs: [UUID: String] = [:]
        for group in source.groups {
            groupFileIDs[group.group.id] = GroupExtras(text: group.storekit)?.fileID
                ?? StableIdentifier.of("group \(source.app.bundleID) \(group.group.id.lowercaseText)")
        }

        var skipped: [StoreKitExport.Skipped] = []
        var products: [(order: Order, json: StoreKitJSON)] = []
        var nonRenewing: [(order: Order, json: StoreKitJSON)] = []
        var subscriptions: [UUID: [(order: Order, json: StoreKitJSON)]] = [:]
        for item in source.products {
            let product = item.product
            let content: ReviewedContent
            switch revision {
            case .live:
                guard product.onSale, let live = product.liveContent else { continue }
                content = live
            case .draft:
                guard product.state != .rejected else { continue }
                content = product.content
            }
            if product.type == .freeSubscription {
                skipped.append(.init(productID: product.productID, reason: .freeSubscription))
                continue
            }
            guard let price = product.price else {
                skipped.append(.init(productID: product.productID, reason: .noPrice))
                continue
            }
            let extras = ProductExtras(text: item.storekit)
            let order = Order(createdAt: product.createdAt, position: extras?.position, name: product.productID)
            switch product.type {
            case .consumable, .nonConsumable:
                products.append((order, writer.product(product, content: content, price: price, extras: extras)))
            case .nonRenewingSubscription:
                nonRenewing.append((order, writer.product(product, content: content, price: price, extras: extras)))
            case .autoRenewableSubscription:
                guard let groupID = content.subscriptionGroupID, let groupFileID = groupFileIDs[groupID],
                      let level = content.level, let duration = content.duration
                else {
                    skipped.append(.init(productID: product.productID, reason: .incomplete))
                    continue
                }
                var json = writer.product(product, content: content, price: price, extras: extras)
                writer.makeSubscription(&json, product: product, extras: extras, groupFileID: groupFileID, level: level,
                                        duration: duration)
                subscriptions[groupID, default: []].append((order, json))
            case .freeSubscription:
                continue
            }
        }

        var groups: [(order: Order, json: StoreKitJSON)] = []
        for item in source.groups {
            let members = subscriptions[item.group.id] ?? []
            if revision == .live && members.isEmpty { continue }
            let extras = GroupExtras(text: item.storekit)
            var object = extras?.object ?? [:]
            object["id"] = .string(groupFileIDs[item.group.id]!)
            object["name"] = .string(item.group.referenceName)
            object["localizations"] = .array(Writer.localizations(
                item.group.localizations.map { ($0.locale, $0.name, nil) }, extras: extras?.localizations ?? []))
            object["subscriptions"] = .array(members.sorted { $0.order < $1.order }.map(\.json))
            groups.append((Order(createdAt: item.group.createdAt, position: extras?.position, name: item.group.referenceName),
                           .object(object)))
        }

        document["products"] = .array(products.sorted { $0.order < $1.order }.map(\.json))
        if documentExtras?.hasNonRenewingSubscriptions ?? true || !nonRenewing.isEmpty {
            document["nonRenewingSubscriptions"] = .array(nonRenewing.sorted { $0.order < $1.order }.map(\.json))
        }
        document["subscriptionGroups"] = .array(groups.sorted { $0.order < $1.order }.map(\.json))
        let configuration: StoreKitConfiguration
        do {
            configuration = try StoreKitConfiguration(json: .object(document))
        } catch {
            throw StoreKitExportFailure(issues: error.issues)
        }
        return StoreKitExport(
            data: configuration.fileData(), skipped: skipped,
            productCount: products.count + nonRenewing.count + subscriptions.values.reduce(0) { $0 + $1.count },
            groupCount: groups.count)
    }

    /// Where an element goes in its array: first what came from files, in the order each file had (imports in
    /// the order they happened), then the rest by name.
    struct Order: Comparable {
        let createdAt: Date
        let position: Int?
        let name: String

        static func < (lhs: Order, rhs: Order) -> Bool {
            if lhs.createdAt != rhs.createdAt { return lhs.createdAt < rhs.createdAt }
            if lhs.position != rhs.position { return (lhs.position ?? Int.max) < (rhs.position ?? Int.max) }
            return lhs.name.utf8.lexicographicallyPrecedes(rhs.name.utf8)
        }
    }

    /// Writes one product's object.
    struct Writer {
        let bundleID: String
        /// The major version of the file being written, which decides the shape of new subscriptions.
        let formatMajor: Int

        func product(_ product: Product, content: ReviewedContent, price: Price, extras: ProductExtras?) -> StoreKitJSON {
            var object = extras?.object ?? ["internalID": .string(StableIdentifier.of("product \(bundleID) \(product.productID)"))]
            object["productID"] = .string(product.productID)
            // The file's reference name while the catalog still has the import's repair of it (`null`, or a name the
            // file gave several groups' subscriptions).
            if let extras, let fileName = extras.fileReferenceName, extras.repairedReferenceName == product.referenceName {
                object["referenceName"] = fileName
            } else {
                object["referenceName"] = .string(product.referenceName)
            }
            object["type"] = .string(Self.fileType(product.type))
            object["displayPrice"] = .string(price.amount.text)
            object["familyShareable"] = .bool(content.familyShareable)
            object["localizations"] = .array(Self.localizations(
                content.localizations.map { ($0.locale, $0.displayName, $0.description) },
                extras: extras?.localizations ?? []))
            return .object(object)
        }

        static func fileType(_ type: PurchaseType) -> String {
            switch type {
            case .consumable: "Consumable"
            case .nonConsumable: "NonConsumable"
            case .nonRenewingSubscription: "NonRenewingSubscription"
            case .autoRenewableSubscription, .freeSubscription: "RecurringSubscription"
            }
        }

        /// Adds what an auto-renewable subscription has beyond a product: its place in the group, its period and
        /// its offers.
        func makeSubscription(_ json: inout StoreKitJSON, product: Product, extras: ProductExtras?, groupFileID: String,
                              level: Int, duration: SubscriptionDuration) {
            guard var object = json.objectValue else { return }
            // The file's groupNumber while the level is the one it was imported as (ties come back as ties).
            if let extras, let groupNumber = extras.groupNumber, extras.level == level {
                object["groupNumber"] = .integer(groupNumber)
            } else {
                object["groupNumber"] = .integer(level)
            }
            object["recurringSubscriptionPeriod"] = .string(duration.rawValue)
            object["subscriptionGroupID"] = .string(groupFileID)
            if extras == nil {
                // The shape Xcode gives a new subscription: empty offer lists.
                for key in ["adHocOffers", "codeOffers", "winbackOffers"] { object[key] = .array([]) }
                if formatMajor >= 5 {
                    object["introductoryOffers"] = .array([])
                } else {
                    object["introductoryOffer"] = .null
                }
            }
            writeIntroductoryOffer(product.introductoryOffer, into: &object)
            json = .object(object)
        }

        /// Puts the catalog's introductory offer where the file had its own (`introductoryOffer`, the first of
        /// `introductoryOffers`, or both, as some files do), unless the catalog's is still the file's.
        func writeIntroductoryOffer(_ offer: IntroductoryOffer?, into object: inout StoreKitJSONObject) {
            let legacy = object["introductoryOffer"]
            let list = object["introductoryOffers"]?.arrayValue
            let fileOffer = legacy?.objectValue ?? list?.first?.objectValue
            let fileCatalogOffer = fileOffer.flatMap(OfferMapping.catalogOffer)
            // Unchanged: the same offer, or none on both sides (a file's "none" offer stays as written).
            if fileCatalogOffer == offer { return }
            let importedID = fileOffer?["internalID"]
            guard let offer else {
                // The catalog no longer has the offer the file had.
                if legacy?.objectValue != nil { object["introductoryOffer"] = .null }
                if var remaining = list {
                    remaining.removeAll { $0.objectValue != nil && $0["internalID"] == importedID }
                    object["introductoryOffers"] = .array(remaining)
                }
                return
            }
            var written = fileOffer ?? ["internalID": .string(StableIdentifier.of(
                "offer \(bundleID) \(object["internalID"]?.stringValue ?? "")"))]
            OfferMapping.write(offer, into: &written)
            var placed = false
            if legacy?.objectValue != nil || (legacy == .null && list == nil) {
                object["introductoryOffer"] = .object(written)
                placed = true
            }
            if var current = list {
                if fileOffer != nil, let index = current.firstIndex(where: { $0["internalID"] == importedID }) {
                    current[index] = .object(written)
                } else if !placed {
                    current.insert(.object(written), at: 0)
                }
                object["introductoryOffers"] = .array(current)
                placed = true
            }
            if !placed {
                if formatMajor >= 5 {
                    object["introductoryOffers"] = .array([.object(written)])
                } else {
                    object["introductoryOffer"] = .object(written)
                }
            }
        }

        /// A product's or group's localizations: in the file's order and spelling, with the catalog's texts;
        /// those the catalog did not take (blank texts) as the file had them, unless the catalog has that locale
        /// now; then those the catalog added. A group's localization has no description in the catalog: the
        /// file's is kept (`description` nil).
        static func localizations(_ catalog: [(locale: String, displayName: String, description: String?)],
                                  extras: [LocalizationExtras]) -> [StoreKitJSON] {
            var byLocale: [String: (displayName: String, description: String?)] = [:]
            for localization in catalog { byLocale[localization.locale] = (localization.displayName, localization.description) }
            var written: Set<String> = []
            var result: [StoreKitJSON] = []
            for extra in extras {
                let locale = StoreKitLocale.catalog(extra.locale)
                if let texts = byLocale[locale], !written.contains(locale) {
                    var object = extra.imported ? extra.object : extra.object.removing(["displayName", "locale"])
                    object["locale"] = .string(extra.locale)
                    object["displayName"] = .string(texts.displayName)
                    if let description = texts.description {
                        object["description"] = .string(description)
                    } else if object["description"] == nil {
                        object["description"] = .string("")
                    }
                    result.append(.object(object))
                    written.insert(locale)
                } else if !extra.imported {
                    result.append(.object(extra.object))
                }
            }
            for localization in catalog where !written.contains(localization.locale) {
                result.append([
                    "locale": .string(StoreKitLocale.file(localization.locale)),
                    "displayName": .string(localization.displayName),
                    "description": .string(localization.description ?? ""),
                ])
                written.insert(localization.locale)
            }
            return result
        }
    }
}
