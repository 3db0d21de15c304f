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
        public var creationChanges: [FieldChange] {
            [
                FieldChange(field: "id", old: nil, new: group.id),
                FieldChange(field: "referenceName", old: nil, new: group.referenceName),
                FieldChange(field: "localizations", old: nil, new: group.localizations),
            ].compactMap { $0 }
        }
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

    /// The groups the import creates.
    public var newGroups: [Group] { groups.filter(\.isNew) }
    /// The products the import creates.
    public var creations: [Item] { products.filter { $0.outcome == .create } }
    public var conflicts: [Item] { products.filter { $0.outcome == .conflict } }
}
