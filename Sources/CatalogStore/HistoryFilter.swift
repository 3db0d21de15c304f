import CatalogCore
import Foundation

/// Which events a history query answers.
public struct HistoryFilter: Sendable, Hashable {
    /// Only events of these apps (a key limited to some apps); `nil` for every event.
    public var visibleApps: Set<String>?
    public var app: String?
    public var productID: String?
    /// A key's id, or the name of the key or local command that made the change.
    public var actor: String?
    public var action: ReviewAction?
    public var kind: HistoryKind?
    /// Events that moved a product from or to this state.
    public var state: ReviewState?
    public var since: Date?
    public var until: Date?

    public init(visibleApps: Set<String>? = nil, app: String? = nil, productID: String? = nil, actor: String? = nil,
                action: ReviewAction? = nil, kind: HistoryKind? = nil, state: ReviewState? = nil, since: Date? = nil,
                until: Date? = nil) {
        self.visibleApps = visibleApps
        self.app = app
        self.productID = productID
        self.actor = actor
        self.action = action
        self.kind = kind
        self.state = state
        self.since = since
        self.until = until
    }
}

/// Where a page of a history listing starts.
///
/// `horizon` fixes the listing's events: those of transactions that had finished when its first page was
/// read (below that snapshot's xmin). The set never changes afterwards, so pages over it never repeat or
/// skip an event whatever is written meanwhile; a new listing takes a new horizon and sees the new events.
public struct HistoryPosition: Sendable, Hashable {
    public let horizon: String
    public let afterSequence: Int64?

    public init(horizon: String, afterSequence: Int64?) {
        self.horizon = horizon
        self.afterSequence = afterSequence
    }
}
