import CatalogCore
import Crypto
import Foundation

extension CatalogPlan {
    /// The plan of applying the catalog file `bytes` to `snapshot`'s catalog, as of `now`.
    ///
    /// Every rule is CatalogCore's: a new product is `Product.create`d, a changed one `applying` its edit (which
    /// refuses what the product's state refuses and every field rule), a group is `validated` or `editing`, and
    /// the catalog as it would be is checked by `CatalogSnapshot.conflicts`. What the file itself breaks (an
    /// unknown key, a value of the wrong kind) throws, as the file is then not a catalog file at all.
    public static func make(file bytes: some Collection<UInt8>, for snapshot: CatalogSnapshot, allowDeletions: Bool,
                            at now: Date) throws(CatalogFileError) -> CatalogPlan {
        let file = try CatalogFile(reading: bytes)
        let fileSHA256 = SHA256.hash(data: Array(bytes)).lowercaseHexadecimal
        var planner = Planner(file: file, snapshot: snapshot, allowDeletions: allowDeletions, now: now)
        planner.plan()
        return CatalogPlan(
            groups: planner.groupSteps, products: planner.productSteps, refusals: planner.refusals, kept: planner.kept,
            keptGroups: planner.keptGroups, allowsDeletions: allowDeletions, fileSHA256: fileSHA256,
            fingerprint: Fingerprint.of(snapshot, fileSHA256: fileSHA256, allowDeletions: allowDeletions))
    }
}

/// Works out a plan, step by step.
private struct Planner {
    let file: CatalogFile
    let snapshot: CatalogSnapshot
    let allowDeletions: Bool
    let now: Date
    var groupSteps: [CatalogPlan.GroupStep] = []
    var productSteps: [CatalogPlan.ProductStep] = []
    var refusals: [CatalogPlan.Refusal] = []
    var kept: [CatalogPlan.Kept] = []
    var keptGroups: [String] = []
    /// Group ids by reference name, the file's new groups' included.
    private var groupIDs: [String: UUID] = [:]

    init(file: CatalogFile, snapshot: CatalogSnapshot, allowDeletions: Bool, now: Date) {
        self.file = file
        self.snapshot = snapshot
        self.allowDeletions = allowDeletions
        self.now = now
    }

    mutating func plan() {
        if let app = file.app, app != snapshot.app.bundleID {
            refuse("app", nil, "app", "the file describes the app \(app.prefix(155)), not \(snapshot.app.bundleID)")
        }
        planGroups()
        planProducts()
    }

    // MARK: Groups

    private mutating func planGroups() {
        var existing: [String: SubscriptionGroup] = [:]
        for group in snapshot.groups {
            existing[group.referenceName] = group
            groupIDs[group.referenceName] = group.id
        }
        var seen: [String: String] = [:]
        for (index, fileGroup) in file.subscriptionGroups.enumerated() {
            let path = "subscriptionGroups[\(index)]"
            if let first = seen[fileGroup.referenceName] {
                refuse("\(path).referenceName", nil, "unique",
                       "\"\(fileGroup.referenceName.prefix(64))\" is also the referenceName of \(first); a group's reference name is unique within an app")
                continue
            }
            seen[fileGroup.referenceName] = path
            if let group = existing[fileGroup.referenceName] {
                if Set(group.localizations) == Set(fileGroup.localizations) {
                    groupSteps.append(.init(path: path, action: .unchanged, group: group, changes: []))
                    continue
                }
                do {
                    var (edited, changes) = try group.editing(referenceName: nil, localizations: fileGroup.localizations)
                    edited.updatedAt = now
                    groupSteps.append(.init(path: path, action: .update, group: edited, changes: changes))
                } catch {
                    refuse(error, at: path, productID: nil, renaming: [:])
                }
                continue
            }
            do {
                let group = try SubscriptionGroup(bundleID: snapshot.app.bundleID, referenceName: fileGroup.referenceName,
                                                  localizations: fileGroup.localizations, createdAt: now,
                                                  updatedAt: now).validated()
                groupIDs[group.referenceName] = group.id
                groupSteps.append(.init(path: path, action: .create, group: group, changes: group.creationChanges))
            } catch {
                refuse(error, at: path, productID: nil, renaming: [:])
            }
        }
        keptGroups = snapshot.groups.map(\.referenceName).filter { seen[$0] == nil }
            .sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    // MARK: Products

    /// The catalog's names of a product's fields, by the file's, where they differ.
    static let fileFields = ["subscriptionGroupId": "subscriptionGroup"]

    private mutating func planProducts() {
        var existing: [String: Product] = [:]
        for product in snapshot.products { existing[product.productID] = product }
        var paths: [String: String] = [:]
        var final: [String: Product] = existing
        for (index, item) in file.products.enumerated() {
            let path = "products[\(index)]"
            if let first = paths[item.productID] {
                refuse("\(path).productId", item.productID, "unique", "\(item.productID.prefix(100)) is also at \(first)")
                continue
            }
            paths[item.productID] = path
            var groupID: UUID?
            if let name = item.subscriptionGroup {
                guard let id = groupIDs[name] else {
                    refuse("\(path).subscriptionGroup", item.productID, "exists",
                           "no subscription group \"\(name.prefix(64))\" in the file or the app")
                    continue
                }
                groupID = id
            }
            if let current = existing[item.productID] {
                if let step = update(current, to: item, groupID: groupID, at: path) {
                    productSteps.append(step)
                    final[item.productID] = step.product
                }
            } else if let step = create(item, groupID: groupID, at: path) {
                productSteps.append(step)
                final[item.productID] = step.product
            }
        }
        for product in snapshot.products where paths[product.productID] == nil {
            if !allowDeletions {
                kept.append(.init(productID: product.productID, state: product.state, deletable: product.isDeletable))
            } else if product.isDeletable {
                productSteps.append(.init(path: nil, action: .delete, product: product, previous: product, changes: [],
                                          followUp: []))
                final[product.productID] = nil
            } else {
                refuse("products", product.productID, "notDeletable",
                       "\(product.productID) is not in the file, but it cannot be deleted: it was submitted for review "
                           + "(only a product never submitted can be deleted); keep it in the file")
            }
        }
        // The rules over the whole catalog, as the plan would leave it.
        let groups = snapshot.groups.map { group in groupSteps.first { $0.group.id == group.id }?.group ?? group }
            + groupSteps.filter { $0.action == .create }.map(\.group)
        let order = snapshot.products.map(\.productID) + file.products.map(\.productID)
        var listed = Set<String>()
        let products = order.compactMap { id -> Product? in
            guard listed.insert(id).inserted else { return nil }
            return final[id]
        }
        for conflict in snapshot.conflicts(ifProductsWere: products, groups: groups) {
            guard let id = conflict.productID else {
                refuse("products", nil, conflict.rule, conflict.message)
                continue
            }
            let field = Self.fileFields[conflict.field] ?? conflict.field
            let path = paths[id].map { "\($0).\(field)" } ?? "products"
            refuse(path, id, conflict.rule, conflict.message { paths[$0] ?? $0 })
        }
    }

    /// A product of the file that the catalog does not have yet: created as the file describes it.
    private mutating func create(_ item: CatalogFile.Item, groupID: UUID?, at path: String) -> CatalogPlan.ProductStep? {
        var fields = Self.edit(item, groupID: groupID)
        fields.clear = []
        do {
            let product = try Product.create(NewProduct(productID: item.productID, type: item.type, fields: fields),
                                             in: snapshot.app, at: now)
            let changes = product.creationChanges.map {
                CatalogPlan.Change(field: $0.field, old: nil, new: $0.new, revision: .working)
            }
            return .init(path: path, action: .create, product: product, previous: nil, changes: changes, followUp: [])
        } catch {
            refuse(error, at: path, productID: item.productID, renaming: Self.fileFields)
            return nil
        }
    }

    /// A product the catalog has: unchanged when the file describes it as it is, else the edit that makes it so,
    /// which the product's state and the field rules may refuse.
    private mutating func update(_ current: Product, to item: CatalogFile.Item, groupID: UUID?, at path: String)
        -> CatalogPlan.ProductStep?
    {
        guard current.type == item.type else {
            refuse("\(path).type", item.productID, "immutable",
                   "a product's type never changes: \(item.productID) is a \(current.type.rawValue) (a new type needs a new productId)")
            return nil
        }
        // What the file says already is: nothing is asked of the product, whose state may refuse any edit (a
        // rejected one). The same localizations in another order are no change.
        let currentGroup = current.content.subscriptionGroupID.flatMap { id in snapshot.groups.first { $0.id == id } }
        var described = CatalogFile.Item(current, group: currentGroup?.referenceName)
        if Set(described.localizations) == Set(item.localizations) { described.localizations = item.localizations }
        if described == item {
            return .init(path: path, action: .unchanged, product: current, previous: current, changes: [], followUp: [])
        }
        var edit = Self.edit(item, groupID: groupID)
        if Set(item.localizations) == Set(current.content.localizations) { edit.localizations = nil }
        let change: ProductChange?
        do {
            change = try current.applying(edit, in: snapshot.app, at: now)
        } catch {
            refuse(error, at: path, productID: item.productID, renaming: Self.fileFields)
            return nil
        }
        guard let change else {
            return .init(path: path, action: .unchanged, product: current, previous: current, changes: [], followUp: [])
        }
        let edited = change.product
        let changes = change.changes.map { fieldChange in
            let revision: CatalogPlan.Revision = current.liveContent == nil
                ? .working : ReviewedContent.fieldNames.contains(fieldChange.field) ? .draft : .live
            return CatalogPlan.Change(field: fieldChange.field, old: fieldChange.old, new: fieldChange.new, revision: revision)
        }
        var followUp: [ReviewAction] = []
        if changes.contains(where: { $0.revision == .draft }),
           Transition.named(.submitChange).from.contains(edited.state) {
            followUp.append(.submitChange)
        }
        if edited.state != current.state && edited.state == Transition.approvalRevokedByEdit.to {
            followUp.append(.approve)
        }
        if edited.state == .developerActionRequired && changes.contains(where: { ReviewedContent.fieldNames.contains($0.field) }) {
            followUp.append(.resubmit)
        }
        return .init(path: path, action: .update, product: edited, previous: current, changes: changes, followUp: followUp)
    }

    /// The edit that makes a product what the file describes: every field given, or cleared when the file leaves
    /// it out.
    static func edit(_ item: CatalogFile.Item, groupID: UUID?) -> ProductEdit {
        var edit = ProductEdit(
            referenceName: item.referenceName, price: item.price, territoryPrices: item.territoryPrices,
            introductoryOffer: item.introductoryOffer, clearedForSale: item.clearedForSale,
            localizations: item.localizations, reviewNote: item.reviewNote, familyShareable: item.familyShareable,
            subscriptionGroupID: groupID, level: item.level, duration: item.duration)
        if item.price == nil { edit.clear.insert(.price) }
        if item.introductoryOffer == nil { edit.clear.insert(.introductoryOffer) }
        if item.reviewNote == nil { edit.clear.insert(.reviewNote) }
        if groupID == nil { edit.clear.insert(.subscriptionGroupId) }
        if item.level == nil { edit.clear.insert(.level) }
        if item.duration == nil { edit.clear.insert(.duration) }
        return edit
    }

    // MARK: Refusals

    private mutating func refuse(_ path: String, _ productID: String?, _ rule: String, _ message: String) {
        refusals.append(.init(path: path, productID: productID, rule: rule, message: message))
    }

    /// CatalogCore's refusal, at its path in the file.
    private mutating func refuse(_ error: CatalogError, at path: String, productID: String?, renaming: [String: String]) {
        switch error {
        case .validationFailed(let problems), .productIncomplete(let problems):
            for problem in problems {
                var field = problem.field
                if let dot = field.firstIndex(where: { $0 == "." || $0 == "[" }) {
                    let head = String(field[..<dot])
                    if let renamed = renaming[head] { field = renamed + field[dot...] }
                } else if let renamed = renaming[field] {
                    field = renamed
                }
                refuse("\(path).\(field)", productID, problem.rule, problem.message)
            }
        case .conflict(let message, let state):
            refuse(path, productID, "state", state.map { "\(message) (the product is \($0.rawValue))" } ?? message)
        case .invalidTransition(let refusal):
            refuse(path, productID, "state", refusal.detail)
        case .notFound(let message), .forbidden(let message):
            refuse(path, productID, "refused", message)
        case .preconditionFailed:
            refuse(path, productID, "changed", "the product changed meanwhile")
        }
    }
}
