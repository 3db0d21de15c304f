import Foundation

/// Who made a change: the API key (id, name, role), a local command with no key, or the App Store itself
/// (its notifications: no key and no role).
public struct Actor: Sendable, Hashable, Codable {
    public let keyID: UUID?
    public let name: String
    public let role: KeyRole?

    public init(keyID: UUID?, name: String, role: KeyRole?) {
        self.keyID = keyID
        self.name = name
        self.role = role
    }
}

/// What kind of change an event records.
public enum HistoryKind: String, CaseIterable, Sendable, Codable {
    case created, edited, action, deleted
    case appCreated = "app_created"
    case appEdited = "app_edited"
    case groupCreated = "group_created"
    case groupEdited = "group_edited"
    case keyCreated = "key_created"
    case keyRevoked = "key_revoked"
    /// An app's store settings changed (the shared secret as "set", "changed" or "removed", never its value).
    case storeSettingsChanged = "store_settings_changed"
    /// A transaction entered the ledger.
    case transactionRecorded = "transaction_recorded"
    /// A later source added facts to a transaction of the ledger (an expiry, a refund, a price).
    case transactionUpdated = "transaction_updated"
    /// The ledger noticed irregular activity or a refund (a signal: sharedTransaction, manyStoreAccounts, refund),
    /// in the same transaction as the ledger change that raised it.
    case signalRaised = "signal_raised"
    /// A webhook endpoint was created or deleted (its origin and filters, never its path, query or secret).
    case webhookCreated = "webhook_created"
    case webhookDeleted = "webhook_deleted"
    /// Deliveries to an endpoint stopped: an event failed for the whole retry window (the reason says which).
    case webhookDisabled = "webhook_disabled"
    /// An endpoint's deliveries were replayed from an event (and resumed, if they had stopped).
    case webhookRedelivered = "webhook_redelivered"

    /// The kinds of a product's own events: what its history and its point-in-time reads follow (not the sales
    /// recorded under its productId).
    public static let productKinds: [HistoryKind] = [.created, .edited, .action, .deleted]
}

/// An event to append to the history, in the same transaction as the change it records.
public struct HistoryRecord: Sendable, Hashable {
    public var kind: HistoryKind
    /// `nil` for events outside any app (keys without apps).
    public var bundleID: String?
    public var productID: String?
    /// The product's version after the change.
    public var productVersion: Int?
    public var action: ReviewAction?
    public var fromState: ReviewState?
    public var toState: ReviewState?
    public var actor: Actor
    public var reason: String?
    public var changes: [FieldChange]
    public var requestID: String?

    public init(kind: HistoryKind, bundleID: String?, productID: String? = nil, productVersion: Int? = nil,
                action: ReviewAction? = nil, fromState: ReviewState? = nil, toState: ReviewState? = nil,
                actor: Actor, reason: String? = nil, changes: [FieldChange] = [], requestID: String? = nil) {
        self.kind = kind
        self.bundleID = bundleID
        self.productID = productID
        self.productVersion = productVersion
        self.action = action
        self.fromState = fromState
        self.toState = toState
        self.actor = actor
        self.reason = reason
        self.changes = changes
        self.requestID = requestID
    }
}

/// An event as the history keeps it: the record plus its place in the global order and in its hash chain.
public struct HistoryEvent: Sendable, Hashable {
    /// The global order of events.
    public let sequence: Int64
    /// The event's position in its chain, from 1.
    public let chainSequence: Int64
    public let at: Date
    /// `at` as the chain covers it: RFC 3339 UTC with six fraction digits.
    public let canonicalAt: String
    /// The chain: the app's bundle id, or "" for events outside any app.
    public let chain: String
    /// `changes` as stored (JSON), from which the canonical form is made.
    public let changesJSON: String
    public let record: HistoryRecord
    /// Hex SHA-256 of the previous event of the same chain (64 zeros for the first).
    public let previousHash: String
    /// Hex SHA-256 of `previousHash` (as bytes) followed by the event's canonical JSON (UTF-8).
    public let hash: String

    public init(sequence: Int64, chainSequence: Int64, at: Date, canonicalAt: String, chain: String,
                changesJSON: String, record: HistoryRecord, previousHash: String, hash: String) {
        self.sequence = sequence
        self.chainSequence = chainSequence
        self.at = at
        self.canonicalAt = canonicalAt
        self.chain = chain
        self.changesJSON = changesJSON
        self.record = record
        self.previousHash = previousHash
        self.hash = hash
    }

    /// The hash of the first event's predecessor.
    public static let genesisHash = String(repeating: "0", count: 64)
}
