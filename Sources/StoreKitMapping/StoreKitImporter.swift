import CatalogCore
import Foundation
import StoreKitConfiguration

/// A file that cannot be imported because it is not JSON at all (as opposed to JSON that breaks the format or
/// the catalog's rules, which is `CatalogError.validationFailed` with every problem's path).
public struct StoreKitFileNotJSON: Error, Sendable, CustomStringConvertible {
    public let error: StoreKitJSONSyntaxError
    public var description: String { "the file is not JSON: \(error)" }
    /// Where the file stops being JSON, and why (line and column), for a person who will fix it.
    public var syntaxProblem: String { error.description }
}

/// Plans the import of a StoreKit configuration file into an app's catalog.
///
/// The file is read by the StoreKit format's rules; unambiguous repairs that keep every productId, type and price
/// are made and reported (a `null` reference name becomes the productId, one reference name given to
/// subscriptions of several groups is made unique by each one's group); then every group and product is checked
/// by the catalog's own rules (`SubscriptionGroup.validated`, `Product.create`, `CatalogSnapshot.conflicts`), whose
/// problems are reported at their path in the file (`subscriptionGroups[0].subscriptions[2].localizations[0]
/// .displayName`). A file with any problem imports nothing, unless the import is asked to skip what the rules
/// refuse: then every refused product (and every subscription of a refused group) is left out and named.
public enum StoreKitImporter {
    /// The currency of a file's prices when the importer names none (files never say).
    public static let defaultCurrency = "USD"

    /// The plan for importing `file` into `snapshot`'s app, its prices read in `currency`, as of `now`.
    ///
    /// Throws ``StoreKitFileNotJSON`` for bytes that are not JSON, and `CatalogError.validationFailed` with
    /// every problem of a file that breaks the format or (unless `skipInvalid`) the catalog's rules. With
    /// `skipInvalid`, products the rules refuse, and products in conflict with the catalog, are left out and
    /// named in ``ImportPlan/skipped``; what is not a product's (the format, the currency, the app's product
    /// limit) still refuses the whole file.
    public static func plan(file: some Collection<UInt8>, currency: String, into snapshot: CatalogSnapshot,
                            at now: Date, skipInvalid: Bool = false) throws -> ImportPlan {
        let currencyProblems = Identifiers.threeLetterCodeProblems(currency, field: "currency", what: "ISO 4217 currency")
        let json: StoreKitJSON
        do {
            json = try StoreKitJSON(parsing: file)
        } catch {
            throw StoreKitFileNotJSON(error: error)
        }
        // With a bad currency every price would break too: check the file in the default one, report it once.
        var builder = PlanBuilder(snapshot: snapshot, currency: currencyProblems.isEmpty ? currency : defaultCurrency,
                                  now: now)
        let configuration: StoreKitConfiguration
        do {
            configuration = try StoreKitConfiguration(json: json)
        } catch {
            // The parts that do read are checked too, so that the answer lists every problem at once.
            builder.check(StoreKitConfiguration.readableParts(of: json))
            throw CatalogError.validationFailed(currencyProblems + error.issues.map(FieldProblem.init)
                                                + builder.problems.map(\.problem))
        }
        var (groups, items) = builder.check(configuration)
        var skipped: [ImportPlan.Skipped] = []
        if skipInvalid {
            (groups, items, skipped) = builder.skipRefused(groups: groups, items: items)
        }
        let problems = builder.problems.map(\.problem)
        guard currencyProblems.isEmpty && problems.isEmpty else {
            throw CatalogError.validationFailed(currencyProblems + problems)
        }
        var document = configuration
        document.products = []
        document.nonRenewingSubscriptions = configuration.nonRenewingSubscriptions.map { _ in [] }
        document.subscriptionGroups = []
        let extras = DocumentExtras(
            document: document.jsonValue().objectValue?.removing(DocumentExtras.catalogKeys) ?? [:],
            hasNonRenewingSubscriptions: configuration.nonRenewingSubscriptions != nil)
        return ImportPlan(groups: groups, products: items, warnings: builder.warnings, document: extras.text,
                          currency: currency, skipped: skipped)
    }
}

extension ImportPlan.Item {
    /// The reason its `created` history event gives: `base` (which names the file), then each repair.
    public func historyReason(_ base: String) -> String {
        guard !repairs.isEmpty else { return base }
        return base + "; repaired: " + repairs.map { "\($0.field) \($0.message)" }.joined(separator: "; ")
    }
}

extension FieldProblem {
    /// A problem of the format, at its path in the file (`$` for the file itself).
    init(_ issue: StoreKitValidationIssue) {
        let path = issue.path.description
        self.init(field: path.isEmpty ? "$" : path, rule: "format", message: issue.message)
    }
}

/// A subscription group of the file, where it is.
struct FileGroup {
    let path: String
    let index: Int
    let group: StoreKitSubscriptionGroup
}

/// A product of the file, whatever array it is in, where it is.
struct FileProduct {
    let path: String
    /// Its index in its array.
    let position: Int
    let type: PurchaseType
    let productID: String
    /// As the file has it (`nil` for `null`).
    let fileReferenceName: String?
    /// As the catalog takes it: the file's, or its repair.
    var referenceName: String
    var repairs: [ImportPlan.Repair] = []
    let displayPrice: String
    let familyShareable: Bool
    let localizations: [StoreKitLocalization]
    /// The file's object, for what the catalog does not model.
    let object: StoreKitJSONObject
    let subscription: StoreKitSubscription?
    let groupIndex: Int?

    init(path: String, position: Int, product: StoreKitProduct) {
        self.path = path
        self.position = position
        type = switch product.type {
        case .consumable: .consumable
        case .nonConsumable: .nonConsumable
        case .nonRenewingSubscription: .nonRenewingSubscription
        case .recurringSubscription: .autoRenewableSubscription
        }
        productID = product.productID
        fileReferenceName = product.referenceName
        referenceName = product.referenceName ?? ""
        displayPrice = product.displayPrice
        familyShareable = product.familyShareable
        localizations = product.localizations
        var object = product.unknownKeys
        object["internalID"] = .string(product.internalID)
        self.object = object
        subscription = nil
        groupIndex = nil
    }

    init(path: String, position: Int, subscription: StoreKitSubscription, groupIndex: Int) {
        self.path = path
        self.position = position
        type = .autoRenewableSubscription
        productID = subscription.productID
        fileReferenceName = subscription.referenceName
        referenceName = subscription.referenceName ?? ""
        displayPrice = subscription.displayPrice
        familyShareable = subscription.familyShareable
        localizations = subscription.localizations
        object = subscription.jsonValue().objectValue?.removing(ProductExtras.catalogKeys) ?? [:]
        self.subscription = subscription
        self.groupIndex = groupIndex
    }
}

/// Checks a file's groups and products by the catalog's rules and works out what becomes of each.
struct PlanBuilder {
    /// A problem with what it belongs to, so that a refused product or group can be left out with its own.
    struct OwnedProblem {
        enum Owner: Equatable {
            case product(path: String)
            case group(index: Int)
            /// A rule over the whole catalog that the product breaks with another (CatalogCore's conflicts).
            case across(path: String)
            /// The file as a whole (the app's product limit): it refuses the import whatever is skipped.
            case file
        }

        let owner: Owner
        let problem: FieldProblem
    }

    let snapshot: CatalogSnapshot
    let currency: String
    let now: Date
    private(set) var problems: [OwnedProblem] = []
    private(set) var warnings: [FieldProblem] = []

    /// The app's products by productId.
    private let existingProducts: [String: Product]
    /// The file's products by productId, with their paths, for naming the other product of a conflict.
    private var filePaths: [String: String] = [:]
    /// The file's products' paths in file order, and their groups' indexes.
    private var fileOrder: [String] = []
    private var groupIndexes: [String: Int] = [:]

    init(snapshot: CatalogSnapshot, currency: String, now: Date) {
        self.snapshot = snapshot
        self.currency = currency
        self.now = now
        var existing: [String: Product] = [:]
        for product in snapshot.products { existing[product.productID] = product }
        existingProducts = existing
    }

    /// Plans a whole, well-formed file.
    mutating func check(_ configuration: StoreKitConfiguration) -> ([ImportPlan.Group], [ImportPlan.Item]) {
        var products = configuration.products.enumerated().map {
            FileProduct(path: "products[\($0.offset)]", position: $0.offset, product: $0.element)
        }
        products += (configuration.nonRenewingSubscriptions ?? []).enumerated().map {
            FileProduct(path: "nonRenewingSubscriptions[\($0.offset)]", position: $0.offset, product: $0.element)
        }
        var groups: [FileGroup] = []
        for (groupIndex, group) in configuration.subscriptionGroups.enumerated() {
            let path = "subscriptionGroups[\(groupIndex)]"
            groups.append(FileGroup(path: path, index: groupIndex, group: group))
            products += group.subscriptions.enumerated().map {
                FileProduct(path: "\(path).subscriptions[\($0.offset)]", position: $0.offset, subscription: $0.element,
                            groupIndex: groupIndex)
            }
        }
        return check(groups: groups, products: products)
    }

    /// Checks what reads of a file that breaks the format, for its problems only.
    mutating func check(_ parts: StoreKitReadableParts) {
        let groups = parts.groups.map { FileGroup(path: $0.path.description, index: $0.index, group: $0.group) }
        let products = parts.products.map { FileProduct(path: $0.path.description, position: $0.index, product: $0.product) }
            + parts.subscriptions.map {
                FileProduct(path: $0.path.description, position: $0.index, subscription: $0.subscription,
                            groupIndex: $0.groupIndex)
            }
        _ = check(groups: groups, products: products)
    }

    private mutating func check(groups fileGroups: [FileGroup], products unrepaired: [FileProduct])
        -> ([ImportPlan.Group], [ImportPlan.Item])
    {
        let fileProducts = repairReferenceNames(unrepaired, groups: fileGroups)
        for product in fileProducts {
            if filePaths[product.productID] == nil { filePaths[product.productID] = product.path }
            fileOrder.append(product.path)
            groupIndexes[product.path] = product.groupIndex
        }
        let (groups, groupIDs) = checkGroups(fileGroups)
        let levels = assignLevels(fileProducts)
        var items: [ImportPlan.Item] = []
        items.reserveCapacity(fileProducts.count)
        for fileProduct in fileProducts {
            // A group that failed its own checks still gets an id, so that its subscriptions are checked too.
            let groupID = fileProduct.groupIndex.map { groupIDs[$0] ?? UUID() }
            if let item = checkProduct(fileProduct, groupID: groupID, level: levels[fileProduct.path]) {
                items.append(item)
            }
        }
        checkAcrossProducts(items, groups: groups)
        return (groups, items)
    }

    // MARK: Repairs

    /// Reference names the catalog can take, changed only where the change is unambiguous and reported: a `null`
    /// becomes the productId (its first 64 characters); one name given to subscriptions of several groups (and to
    /// nothing else) becomes each one's name followed by its group's, `Monthly (Pro)`. Other duplicates stay, for
    /// the uniqueness rule to name.
    private func repairReferenceNames(_ products: [FileProduct], groups: [FileGroup]) -> [FileProduct] {
        var products = products
        for index in products.indices where products[index].fileReferenceName == nil {
            let name = String(String.UnicodeScalarView(products[index].productID.unicodeScalars.prefix(Limits.referenceName.upperBound)))
            products[index].referenceName = name
            products[index].repairs.append(ImportPlan.Repair(
                path: "\(products[index].path).referenceName", field: "referenceName", rule: "referenceNameFromProductId",
                from: nil, to: name, message: "is null in the file: named after the productId, \"\(name)\""))
        }
        let groupNames = Dictionary(groups.map { ($0.index, $0.group.name) }, uniquingKeysWith: { first, _ in first })
        var byName: [String: [Int]] = [:]
        for index in products.indices { byName[products[index].referenceName, default: []].append(index) }
        for (name, indexes) in byName where indexes.count > 1 {
            let groupIndexes = indexes.map { products[$0].groupIndex }
            guard !groupIndexes.contains(nil), Set(groupIndexes).count == indexes.count else { continue }
            for index in indexes {
                guard let groupName = products[index].groupIndex.flatMap({ groupNames[$0] }) else { continue }
                let suffix = " (\(groupName))"
                let room = Limits.referenceName.upperBound - suffix.unicodeScalars.count
                guard room > 0 else { continue }
                let repaired = String(String.UnicodeScalarView(name.unicodeScalars.prefix(room))) + suffix
                let others = indexes.filter { $0 != index }.map { products[$0].path }.joined(separator: ", ")
                products[index].referenceName = repaired
                products[index].repairs.append(ImportPlan.Repair(
                    path: "\(products[index].path).referenceName", field: "referenceName", rule: "referenceNameByGroup",
                    from: products[index].fileReferenceName, to: repaired,
                    message: "\"\(name.prefix(64))\" is also the referenceName of \(others) in another group: named after "
                        + "its group, \"\(repaired)\""))
            }
        }
        return products
    }

    // MARK: Groups

    /// Each file group becomes the app's group of the same reference name, or a new one.
    private mutating func checkGroups(_ fileGroups: [FileGroup]) -> ([ImportPlan.Group], [Int: UUID]) {
        var existing: [String: SubscriptionGroup] = [:]
        for group in snapshot.groups { existing[group.referenceName] = group }
        var groups: [ImportPlan.Group] = []
        var ids: [Int: UUID] = [:]
        var pathsByName: [String: String] = [:]
        for fileGroup in fileGroups {
            let group = fileGroup.group
            let owner = OwnedProblem.Owner.group(index: fileGroup.index)
            if let first = pathsByName[group.name] {
                problems.append(OwnedProblem(owner: owner, problem: FieldProblem(
                    field: "\(fileGroup.path).name", rule: "unique",
                    message: "\"\(group.name.prefix(64))\" is also the name of \(first); a group's name is unique within an app")))
                continue
            }
            pathsByName[group.name] = fileGroup.path
            let (localizations, localizationExtras, fileIndexes) = groupLocalizations(group.localizations, at: fileGroup.path)
            if let match = existing[group.name] {
                ids[fileGroup.index] = match.id
                if Set(match.localizations) != Set(localizations) {
                    warnings.append(FieldProblem(
                        field: "\(fileGroup.path).localizations", rule: "existingGroup",
                        message: "the app's group \"\(group.name.prefix(64))\" exists already and keeps its own localizations"))
                }
                groups.append(ImportPlan.Group(path: fileGroup.path, group: match, isNew: false, storekit: nil))
                continue
            }
            let new = SubscriptionGroup(id: UUID(), bundleID: snapshot.app.bundleID, referenceName: group.name,
                                        localizations: localizations, createdAt: now, updatedAt: now)
            do {
                _ = try new.validated()
            } catch {
                if case .validationFailed(let found) = error {
                    problems += found.map {
                        OwnedProblem(owner: owner, problem: $0.inFile(at: fileGroup.path, renaming: Self.groupFields,
                                                                      localizations: fileIndexes))
                    }
                }
            }
            ids[fileGroup.index] = new.id
            var object = group.unknownKeys
            object["id"] = .string(group.id)
            let extras = GroupExtras(position: fileGroup.index, object: object, localizations: localizationExtras)
            groups.append(ImportPlan.Group(path: fileGroup.path, group: new, isNew: true, storekit: extras.text))
        }
        return (groups, ids)
    }

    /// A group's catalog fields by the file's names.
    static let groupFields = ["referenceName": "name", "name": "displayName"]

    /// A group's localized names: `displayName` is the name; `description` (usually empty) stays with the file.
    private mutating func groupLocalizations(_ localizations: [StoreKitLocalization], at path: String)
        -> ([SubscriptionGroup.Localization], [LocalizationExtras], [Int])
    {
        var catalog: [SubscriptionGroup.Localization] = []
        var extras: [LocalizationExtras] = []
        var fileIndexes: [Int] = []
        for (index, localization) in localizations.enumerated() {
            if localization.displayName.isEmpty {
                extras.append(LocalizationExtras(locale: localization.locale, imported: false,
                                                 object: localization.jsonValue().objectValue ?? [:]))
                warnings.append(FieldProblem(
                    field: "\(path).localizations[\(index)].displayName", rule: "blank",
                    message: "is empty: the localization is kept for the StoreKit export, not imported as the group's name"))
                continue
            }
            catalog.append(SubscriptionGroup.Localization(locale: StoreKitLocale.catalog(localization.locale),
                                                          name: localization.displayName))
            fileIndexes.append(index)
            var object = localization.unknownKeys
            object["description"] = .string(localization.description)
            extras.append(LocalizationExtras(locale: localization.locale, imported: true, object: object))
        }
        return (catalog, extras, fileIndexes)
    }

    // MARK: Levels

    /// Catalog levels from `groupNumber`: unique within a group, in the file's order of `groupNumber`. Files may
    /// give several subscriptions one `groupNumber` (a monthly and a yearly plan of one tier); the later ones
    /// move down to the next free level, with a warning, and exports write the file's `groupNumber` again.
    private mutating func assignLevels(_ products: [FileProduct]) -> [String: Int] {
        var byGroup: [Int: [FileProduct]] = [:]
        for product in products where product.subscription != nil {
            byGroup[product.groupIndex ?? -1, default: []].append(product)
        }
        var levels: [String: Int] = [:]
        for (_, subscriptions) in byGroup {
            let ordered = subscriptions.sorted {
                ($0.subscription!.groupNumber, $0.position) < ($1.subscription!.groupNumber, $1.position)
            }
            var previous: (level: Int, path: String)?
            for product in ordered {
                let groupNumber = product.subscription!.groupNumber
                let level = max(groupNumber, (previous?.level ?? 0) + 1)
                if level != groupNumber, let previous {
                    warnings.append(FieldProblem(
                        field: "\(product.path).groupNumber", rule: "levelMoved",
                        message: "\(groupNumber) is imported as level \(level): levels are unique in a catalog group and "
                            + "\(previous.path) comes first; the export writes groupNumber \(groupNumber) again"))
                }
                levels[product.path] = level
                previous = (level, product.path)
            }
        }
        return levels
    }

    // MARK: Products

    /// One product of the file as the catalog would create it, and what becomes of it; `nil` when it breaks
    /// the catalog's rules (the problems are recorded).
    private mutating func checkProduct(_ file: FileProduct, groupID: UUID?, level: Int?) -> ImportPlan.Item? {
        let owner = OwnedProblem.Owner.product(path: file.path)
        var localizations: [Localization] = []
        var localizationExtras: [LocalizationExtras] = []
        var fileIndexes: [Int] = []
        for (index, localization) in file.localizations.enumerated() {
            let blank = [localization.displayName.isEmpty ? "displayName" : nil,
                         localization.description.isEmpty ? "description" : nil].compactMap { $0 }
            if !blank.isEmpty {
                localizationExtras.append(LocalizationExtras(locale: localization.locale, imported: false,
                                                             object: localization.jsonValue().objectValue ?? [:]))
                warnings.append(FieldProblem(
                    field: "\(file.path).localizations[\(index)]", rule: "blank",
                    message: "\(blank.joined(separator: " and ")) \(blank.count == 1 ? "is" : "are") empty: "
                        + "kept for the StoreKit export, not imported as catalog content"))
                continue
            }
            localizations.append(Localization(locale: StoreKitLocale.catalog(localization.locale),
                                              displayName: localization.displayName, description: localization.description))
            fileIndexes.append(index)
            localizationExtras.append(LocalizationExtras(locale: localization.locale, imported: true,
                                                         object: localization.unknownKeys))
        }
        var fields = ProductEdit(referenceName: file.referenceName,
                                 price: Price(currency: currency, amount: DecimalAmount(file.displayPrice)),
                                 localizations: localizations, familyShareable: file.familyShareable)
        var offerPath = "introductoryOffer"
        var offerProblems: [FieldProblem] = []
        if let subscription = file.subscription {
            fields.subscriptionGroupID = groupID
            fields.level = level
            fields.duration = SubscriptionDuration(rawValue: subscription.recurringSubscriptionPeriod.rawValue)
            let offers = subscription.allIntroductoryOffers
            if subscription.introductoryOffer.offer == nil { offerPath = "introductoryOffers[0]" }
            if let first = offers.first {
                switch OfferMapping.catalogOffer(first) {
                case .offer(let offer):
                    fields.introductoryOffer = offer
                case .none:
                    warnings.append(FieldProblem(
                        field: "\(file.path).\(offerPath).paymentMode", rule: "notAnOffer",
                        message: "\"none\" is no offer the catalog holds: kept for the StoreKit export only"))
                case .invalid(let found):
                    offerProblems = found.map {
                        FieldProblem(field: "\(file.path).\(offerPath).\($0.field)", rule: $0.rule, message: $0.message)
                    }
                }
            }
            if offers.count > 1 {
                warnings.append(FieldProblem(
                    field: "\(file.path).introductoryOffers", rule: "oneOffer",
                    message: "the catalog holds one introductory offer, the first; the other \(offers.count - 1) "
                        + "\(offers.count == 2 ? "is" : "are") kept for the StoreKit export"))
            }
        }
        problems += offerProblems.map { OwnedProblem(owner: owner, problem: $0) }
        let product: Product
        do {
            product = try Product.create(NewProduct(productID: file.productID, type: file.type, fields: fields),
                                         in: snapshot.app, at: now)
        } catch {
            if case .validationFailed(let found) = error {
                var renaming = Self.productFields
                for (catalogField, fileField) in Self.offerFields { renaming[catalogField] = "\(offerPath)\(fileField)" }
                problems += found.map {
                    OwnedProblem(owner: owner, problem: $0.inFile(at: file.path, renaming: renaming, localizations: fileIndexes))
                }
            }
            return nil
        }
        guard offerProblems.isEmpty else { return nil }
        let repaired = file.repairs.isEmpty ? nil : file.referenceName
        let extras = ProductExtras(position: file.position, object: file.object, localizations: localizationExtras,
                                   groupNumber: file.subscription?.groupNumber, level: level,
                                   fileReferenceName: repaired == nil ? nil : file.fileReferenceName.map { StoreKitJSON.string($0) } ?? .null,
                                   repairedReferenceName: repaired)
        let (outcome, reason) = outcome(of: product)
        return ImportPlan.Item(path: file.path, product: product, outcome: outcome, reason: reason, storekit: extras.text,
                               repairs: file.repairs)
    }

    /// The catalog's names of a product's fields, by the file's.
    static let productFields = [
        "productId": "productID", "price": "displayPrice", "level": "groupNumber", "duration": "recurringSubscriptionPeriod",
        "subscriptionGroupId": "subscriptionGroupID",
    ]

    /// The catalog's names of an introductory offer's fields, by the file's (after the offer's own path).
    static let offerFields = [
        "introductoryOffer": "", "introductoryOffer.amount": ".displayPrice", "introductoryOffer.period": ".subscriptionPeriod",
        "introductoryOffer.numberOfPeriods": ".numberOfPeriods", "introductoryOffer.paymentMode": ".paymentMode",
    ]

    /// New, unchanged (the same content is in the catalog) or a conflict (other content): an import never
    /// overwrites. A productId used before is a conflict too (``CatalogSnapshot/conflicts(ifProductsWere:groups:)``
    /// names the rule).
    private func outcome(of product: Product) -> (ImportPlan.Outcome, String?) {
        if let existing = existingProducts[product.productID] {
            let differences = Self.differences(existing, product)
            return differences.isEmpty
                ? (.unchanged, nil)
                : (.conflict, "already in the catalog with another \(differences.joined(separator: ", "))")
        }
        if let reserved = snapshot.conflicts(ifProductsWere: [product], groups: []).first(where: { $0.rule == "reserved" }) {
            return (.conflict, reserved.message)
        }
        return (.create, nil)
    }

    /// The fields in which the catalog's product differs from the file's, as the API names them.
    static func differences(_ existing: Product, _ file: Product) -> [String] {
        var fields: [String] = []
        if existing.type != file.type { fields.append("type") }
        if existing.referenceName != file.referenceName { fields.append("referenceName") }
        if existing.price != file.price { fields.append("price") }
        if existing.content.familyShareable != file.content.familyShareable { fields.append("familyShareable") }
        if Set(existing.content.localizations) != Set(file.content.localizations) { fields.append("localizations") }
        if existing.content.subscriptionGroupID != file.content.subscriptionGroupID { fields.append("subscriptionGroupId") }
        if existing.content.level != file.content.level { fields.append("level") }
        if existing.content.duration != file.content.duration { fields.append("duration") }
        if existing.introductoryOffer != file.introductoryOffer { fields.append("introductoryOffer") }
        return fields
    }

    // MARK: Across products

    /// What only the whole catalog can break, as CatalogCore's rules over the catalog the import would leave:
    /// the app's products and the file's new ones, its groups and the file's new ones.
    private mutating func checkAcrossProducts(_ items: [ImportPlan.Item], groups: [ImportPlan.Group]) {
        let created = items.filter { $0.outcome == .create }
        let allGroups = snapshot.groups + groups.filter(\.isNew).map(\.group)
        let paths = filePaths
        for conflict in snapshot.conflicts(ifProductsWere: snapshot.products + created.map(\.product), groups: allGroups) {
            // A productId used before is the item's outcome (a conflict), not a problem of the file.
            guard conflict.rule != "reserved" else { continue }
            guard let id = conflict.productID, let path = created.first(where: { $0.product.productID == id })?.path else {
                problems.append(OwnedProblem(owner: .file, problem: FieldProblem(field: "$", rule: conflict.rule,
                                                                                 message: conflict.message)))
                continue
            }
            let field = Self.productFields[conflict.field] ?? conflict.field
            problems.append(OwnedProblem(owner: .across(path: path), problem: FieldProblem(
                field: "\(path).\(field)", rule: conflict.rule, message: conflict.message { paths[$0] ?? $0 })))
        }
    }

    // MARK: Skipping

    /// The plan without what the catalog's rules refuse: each product refused by its own rules, each product of a
    /// refused group, each product in conflict with the catalog, then each remaining product that still breaks a
    /// rule over the whole catalog with another, named with its problems, in file order. What belongs to no
    /// product (the app's product limit) stays a problem of the file.
    mutating func skipRefused(groups: [ImportPlan.Group], items: [ImportPlan.Item])
        -> ([ImportPlan.Group], [ImportPlan.Item], [ImportPlan.Skipped])
    {
        var refusedGroups: [Int: [FieldProblem]] = [:]
        var refused: [String: [FieldProblem]] = [:]
        for owned in problems {
            switch owned.owner {
            case .group(let index): refusedGroups[index, default: []].append(owned.problem)
            case .product(let path): refused[path, default: []].append(owned.problem)
            case .across, .file: continue
            }
        }
        for item in items where item.outcome == .conflict {
            refused[item.path, default: []].append(FieldProblem(field: item.path, rule: "conflict",
                                                                message: item.reason ?? "conflicts with the catalog"))
        }
        for (path, groupIndex) in groupIndexes {
            if let groupProblems = refusedGroups[groupIndex] { refused[path, default: []] += groupProblems }
        }
        let keptGroups = groups.filter { group in !refusedGroups.keys.contains { "subscriptionGroups[\($0)]" == group.path } }
        var kept = items.filter { refused[$0.path] == nil }
        // The rules over the whole catalog again, without what is left out: a product that collided only with a
        // refused one is kept.
        problems = []
        checkAcrossProducts(kept, groups: keptGroups)
        let fileProblems = problems.filter { $0.owner == .file }
        for owned in problems {
            if case .across(let path) = owned.owner { refused[path, default: []].append(owned.problem) }
        }
        problems = fileProblems
        kept.removeAll { refused[$0.path] != nil }
        let productIDs = Dictionary(filePaths.map { ($0.value, $0.key) }, uniquingKeysWith: { first, _ in first })
        let skipped = fileOrder.compactMap { path in
            refused[path].map { ImportPlan.Skipped(path: path, productID: productIDs[path], problems: $0) }
        }
        return (keptGroups, kept, skipped)
    }
}

extension FieldProblem {
    /// The problem at its path in the file: the catalog's field names replaced by the file's (`renaming`, by
    /// the field's first part), a localization's index by its index in the file, under `path`.
    func inFile(at path: String, renaming: [String: String], localizations fileIndexes: [Int]) -> FieldProblem {
        var mapped = field
        if field.hasPrefix("localizations["), let close = field.firstIndex(of: "]"),
           let index = Int(field[field.index(field.startIndex, offsetBy: 14)..<close]) {
            let fileIndex = fileIndexes.indices.contains(index) ? fileIndexes[index] : index
            var rest = String(field[field.index(after: close)...])
            if rest.hasPrefix("."), let renamed = renaming[String(rest.dropFirst())] { rest = "." + renamed }
            mapped = "localizations[\(fileIndex)]\(rest)"
        } else if let renamed = renaming[field] {
            mapped = renamed
        } else if let dot = field.firstIndex(of: "."), let renamed = renaming[String(field[..<dot])] {
            mapped = renamed
        }
        return FieldProblem(field: mapped.isEmpty ? path : "\(path).\(mapped)", rule: rule, message: message)
    }
}
