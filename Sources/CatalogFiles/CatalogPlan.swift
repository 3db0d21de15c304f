import CatalogCore
import Foundation

/// What applying a catalog file to an app's catalog does, step by step, before anything is written: each group
/// and product created, updated (field by field, saying which revision each change reaches) or unchanged, the
/// deletions asked for, what the file leaves out, and everything that cannot be done, with why.
///
/// A plan is applied whole or not at all, and only if the catalog is still the one it was made from: its
/// ``fingerprint`` covers that catalog, the file and the options.
public struct CatalogPlan: Sendable {
    /// What happens to a group or a product.
    public enum Action: String, Sendable, CaseIterable {
        case create, update, unchanged, delete
    }

    /// Which revision of a product a change reaches.
    public enum Revision: String, Sendable, CaseIterable {
        /// The product has never been live: its one revision changes.
        case working
        /// Effective at once, the live revision included (an unreviewed field: reference name, prices, offer).
        case live
        /// Into a draft (a reviewed field of a live product): customers keep the live revision until the change
        /// is submitted (`submit_change`) and accepted.
        case draft
    }

    /// One field of a product that changes.
    public struct Change: Sendable, Hashable {
        public let field: String
        public let old: JSONValue?
        public let new: JSONValue?
        public let revision: Revision
    }

    /// A subscription group of the file and what becomes of it.
    public struct GroupStep: Sendable {
        /// Its path in the file (`subscriptionGroups[0]`).
        public let path: String
        public let action: Action
        /// The group as it will be (created or edited), or as it is (unchanged).
        public let group: SubscriptionGroup
        /// For an update: the fields that change.
        public let changes: [FieldChange]
    }

    /// A product of the file (or of the catalog, for a deletion) and what becomes of it.
    public struct ProductStep: Sendable {
        /// Its path in the file (`products[3]`); `nil` for a product the file leaves out.
        public let path: String?
        public let action: Action
        /// The product as it will be (created or updated), or as it is (unchanged, deleted).
        public let product: Product
        /// For an update or a deletion: the product as it is now.
        public let previous: Product?
        public let changes: [Change]
        /// What the developer does next for the change to reach customers: `submit_change` after a draft of a
        /// live product, `resubmit` after an edit of a product sent back, `approve` after an edit that revoked the
        /// approval.
        public let followUp: [ReviewAction]

        /// Whether the step changes the state (an edit of an approved product's reviewed fields sends it back to
        /// PENDING_DEVELOPER_APPROVAL).
        public var stateChange: (from: ReviewState, to: ReviewState)? {
            guard let previous, action == .update, previous.state != product.state else { return nil }
            return (previous.state, product.state)
        }
    }

    /// What cannot be done, at its path in the file, and why. A plan with any refusal applies nothing.
    public struct Refusal: Sendable, Hashable, CustomStringConvertible {
        /// The path in the file (`products[3].localizations[0].displayName`), or `products` for a product the
        /// file leaves out.
        public let path: String
        public let productID: String?
        /// A stable name of the rule (`immutable`, `state`, `maxLength`, `unique`, `notDeletable`, ...).
        public let rule: String
        public let message: String

        public var description: String { "\(path): \(message)" }
    }

    /// A product of the catalog that the file leaves out and that stays (deletions were not asked for).
    public struct Kept: Sendable, Hashable {
        public let productID: String
        public let state: ReviewState
        /// Whether it could be deleted (it was never submitted), with deletions allowed.
        public let deletable: Bool
    }

    public let groups: [GroupStep]
    public let products: [ProductStep]
    public let refusals: [Refusal]
    /// Products of the catalog the file leaves out, which stay.
    public let kept: [Kept]
    /// Groups of the catalog the file leaves out, which stay (groups are never deleted).
    public let keptGroups: [String]
    /// Whether the plan was made with deletions allowed.
    public let allowsDeletions: Bool
    /// SHA-256 of the file's bytes, in hex: what the history names the file by.
    public let fileSHA256: String
    /// SHA-256, in hex, of the catalog the plan was made from, the file and the options: apply takes it, and
    /// applies nothing when the plan it makes then has another.
    public let fingerprint: String

    /// Whether applying it changes anything.
    public var hasChanges: Bool {
        groups.contains { $0.action != .unchanged } || products.contains { $0.action != .unchanged }
    }

    /// Whether it can be applied: nothing is refused.
    public var isApplicable: Bool { refusals.isEmpty }
}
