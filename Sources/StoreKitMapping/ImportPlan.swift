import CatalogCore

/// What importing a StoreKit file into an app's catalog does, product by product, before anything is written:
/// the answer of a dry run, and the work of an import.
public struct ImportPlan: Sendable {
    /// What happens to one product of the file.
    public enum Outcome: String, Sendable, CaseIterable {
        /// New to the catalog: it is created, in PENDING_DEVELOPER_APPROVAL.
        case create
        /// Already in the catalog with the same content: nothing to do.
        case unchanged
        /// Already in the catalog with other content, or its productId was used before: never overwritten.
        case conflict
    }

    /// A subscription group of the file and the catalog group it becomes.
    public struct Group: Sendable {
        /// Its path in the file, `subscriptionGroups[0]`.
        public let path: String
        /// The catalog group: new, or the app's group of the same reference name.
        public let group: SubscriptionGroup
        public let isNew: Bool
        /// What the catalog keeps of the file's group beyond its own fields (JSON), for a new group.
        public let storekit: String?
        /// For a new group: its fields, as its `group_created` event records them.
        public var creationChanges: [FieldChange] { group.creationChanges }
    }

    /// An unambiguous change the import made to what the file says, so that the catalog can hold it: never a
    /// productId, a type or a price. Each is reported, kept in the product's history, and undone by the export
    /// while the catalog still has the repaired value.
    public struct Repair: Sendable, Hashable {
        /// The path of the repaired value in the file (`products[0].referenceName`).
        public let path: String
        public let field: String
        /// A stable name: `referenceNameFromProductId` (the file has `null`), `referenceNameByGroup` (the file gives
        /// one reference name to subscriptions of several groups).
        public let rule: String
        /// The file's value (`nil` for `null`) and the catalog's.
        public let from: String?
        public let to: String
        public let message: String
    }

    /// A product of the file that an import asked to skip what the catalog's rules refuse left out, with why.
    public struct Skipped: Sendable {
        /// Its path in the file.
        public let path: String
        /// Its productId, when the file gives one.
        public let productID: String?
        /// Every problem that refused it (or, for a conflict, the reason), at its path in the file.
        public let problems: [FieldProblem]
    }

    /// A product of the file and what becomes of it.
    public struct Item: Sendable {
        /// Its path in the file, `subscriptionGroups[0].subscriptions[2]`.
        public let path: String
        /// The product as the file describes it, checked by the catalog's rules (as created now).
        public let product: Product
        public let outcome: Outcome
        /// Why it is a conflict.
        public let reason: String?
        /// What the catalog keeps of the file's product beyond its own fields (JSON).
        public let storekit: String
        /// The repairs made to the file's product, in the order of its fields.
        public let repairs: [Repair]

        public init(path: String, product: Product, outcome: Outcome, reason: String?, storekit: String,
                    repairs: [Repair] = []) {
            self.path = path
            self.product = product
            self.outcome = outcome
            self.reason = reason
            self.storekit = storekit
            self.repairs = repairs
        }
    }

    public let groups: [Group]
    public let products: [Item]
    /// What is worth knowing but does not stop the import (a localization with blank texts kept for export
    /// only, a tie in `groupNumber`, offers the catalog keeps only for export), with their paths.
    public let warnings: [FieldProblem]
    /// The file without its products and groups (JSON), kept per app for exports.
    public let document: String
    /// The currency the file's prices are read in.
    public let currency: String
    /// Products left out because the catalog's rules refuse them (only when the import was asked to skip them).
    public let skipped: [Skipped]

    public init(groups: [Group], products: [Item], warnings: [FieldProblem], document: String, currency: String,
                skipped: [Skipped] = []) {
        self.groups = groups
        self.products = products
        self.warnings = warnings
        self.document = document
        self.currency = currency
        self.skipped = skipped
    }

    /// Every repair made, in file order.
    public var repairs: [Repair] { products.flatMap(\.repairs) }

    /// The groups the import creates.
    public var newGroups: [Group] { groups.filter(\.isNew) }
    /// The products the import creates.
    public var creations: [Item] { products.filter { $0.outcome == .create } }
    public var conflicts: [Item] { products.filter { $0.outcome == .conflict } }
}
