import CatalogCore
import Logging
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// The catalog's one change feed: what PostgreSQL notifies (a product-identifier list or an API key changed),
/// and the history's events, read in sequence order. Each server process runs one, on one connection of its
/// own, and everything that follows the catalog consumes it: the identifier snapshots, the key cache, and the
/// event stream, webhook deliveries and purchase events (docs/architecture.md).
///
/// A consumer subscribes (``withSubscription(to:_:)``) and is told, as ``Notice``s, what changed, and when it
/// must assume it missed something (``Notice/resumed``: when the feed starts listening, again after every lost
/// connection, and when the consumer fell too far behind). History is read with ``events(after:filter:limit:fresh:)``
/// or ``follow(after:filter:pageSize:_:)``: only up to ``readableThrough``, below which no event can still appear
/// (sequence numbers are taken before their transactions commit, in any order; migration 0014).
///
/// History is polled, not notified: a notification in every transaction that appends an event would make each
/// commit take PostgreSQL's cluster-wide notification lock through its WAL flush, which cost most of the
/// actions' throughput (docs/decisions.md). The feed polls only while someone follows the history (every
/// ``followingPollInterval``), while marks wait to settle, or when a page asks for a fresh position.
public final class CatalogChanges: Service, Sendable {
    /// What a subscriber is told.
    public enum Notice: Sendable, Hashable {
        /// The feed hears changes from now on and may have missed some before: what a subscriber keeps of the
        /// catalog must be read again now (a history reader reads on from where it is). The first notice while
        /// the feed listens; again after every lost connection, and for a subscriber that fell behind.
        case resumed
        /// The feed's connection is lost: no change is heard until the next ``resumed``.
        case interrupted
        /// The product-identifier list of the app changed: a product went on or off sale, or the app is new.
        case identifiers(app: String)
        /// An API key was changed or deleted, by its id (empty: the table was truncated).
        case key(id: String)
        /// More history can be read: ``CatalogChanges/readableThrough`` moved forward.
        case history
    }

    /// Which notices a subscriber wants (``Notice/resumed`` and ``Notice/interrupted`` go to every subscriber).
    public struct Topics: OptionSet, Sendable {
        public let rawValue: Int

        public init(rawValue: Int) {
            self.rawValue = rawValue
        }

        public static let identifiers = Topics(rawValue: 1 << 0)
        public static let keys = Topics(rawValue: 1 << 1)
        public static let history = Topics(rawValue: 1 << 2)
    }

    /// The channels the database notifies, in the transaction of each change: an app's bundle id when its
    /// identifier list changes (migrations 0004, 0011), a key's id when it is changed or deleted (0007).
    static let identifiersChannel = "product_identifiers"
    static let keysChannel = "api_keys"

    /// How often the history is polled while someone follows it, or while marks wait to settle.
    public static let followingPollInterval: Duration = .milliseconds(25)
    static let firstBackoff: Duration = .milliseconds(100)
    static let maximumBackoff: Duration = .seconds(2)

    private struct State {
        var listening = false
        var subscriptions: [Int: Subscription] = [:]
        var nextID = 0
        var followers = 0
        var marks = HistoryMarks()
        /// Those waiting for the next poll (``CatalogChanges/freshPosition(within:)``).
        var pollWaiters: [Int: Wakeup] = [:]
        var stopped = false
    }

    let database: Database
    let logger: Logger
    private let state = Mutex(State())
    /// Wakes the history poll early: a follower arrived, or a page wants a fresh position.
    private let nudges = Subscription(topics: [])

    public init(database: Database, logger: Logger) {
        self.database = database
        self.logger = logger
    }

    /// Whether changes are heard now.
    public var isListening: Bool { state.withLock { $0.listening } }

    /// Every history event numbered up to this is readable, or never will be (its transaction rolled back); no
    /// event with a smaller number can appear later. `nil` until the feed has looked.
    public var readableThrough: Int64? { state.withLock { $0.marks.settled } }

    // MARK: - Running

    /// Listens until cancelled or shut down gracefully, on one connection, again after every failure: at once
    /// after a connection that worked for a while, less and less often while it keeps failing.
    public func run() async {
        await cancelWhenGracefulShutdown {
            var backoff = Self.firstBackoff
            while !Task.isCancelled {
                let listened = Atomic<Bool>(false)
                do {
                    try await self.database.client.withConnection { connection in
                        try await self.listen(on: connection) { listened.store(true, ordering: .relaxed) }
                    }
                } catch {
                    if Task.isCancelled { break }
                    self.logger.warning("listening for catalog changes failed; listening again",
                                        metadata: ["error": "\(String(reflecting: error))"])
                }
                self.setListening(false)
                backoff = listened.load(ordering: .relaxed) ? Self.firstBackoff : min(backoff * 2, Self.maximumBackoff)
                try? await Task.sleep(for: backoff)
            }
        }
        stop()
    }

    private struct ListeningEnded: Error {}

    /// Listens on both channels of `connection`, then hands on what they bring and polls the history on the same
    /// connection, until one of them fails.
    private func listen(on connection: PostgresConnection, listened: @Sendable () -> Void) async throws {
        try await connection.listen(on: Self.identifiersChannel) { identifiers in
            try await connection.listen(on: Self.keysChannel) { keys in
                // Both subscriptions are in place: whatever a subscriber reads from now on cannot miss a change.
                setListening(true)
                listened()
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for try await notification in identifiers { self.deliver(.identifiers(app: notification.payload)) }
                    }
                    group.addTask {
                        for try await notification in keys { self.deliver(.key(id: notification.payload)) }
                    }
                    group.addTask { try await self.pollHistory(on: connection) }
                    try await group.next()
                    group.cancelAll()
                    throw ListeningEnded()
                }
            }
        }
    }

    private func setListening(_ listening: Bool) {
        let (changed, waiters) = state.withLock { state in
            let changed = state.listening != listening
            state.listening = listening
            // Nobody polls without a connection: those waiting for a poll read what is settled.
            let waiters = listening ? [] : Array(state.pollWaiters.values)
            if !listening { state.pollWaiters = [:] }
            return (changed, waiters)
        }
        for waiter in waiters { waiter.wake() }
        if changed { deliver(listening ? .resumed : .interrupted) }
    }

    private func stop() {
        let (subscriptions, waiters) = state.withLock { state in
            state.stopped = true
            state.listening = false
            defer { state.pollWaiters = [:] }
            return (Array(state.subscriptions.values), Array(state.pollWaiters.values))
        }
        for waiter in waiters { waiter.wake() }
        for subscription in subscriptions { subscription.finish() }
        nudges.finish()
    }

    // MARK: - Subscribing

    /// Runs `body` with the notices of `topics`, from now until `body` returns. The first notice is
    /// ``Notice/resumed`` if the feed listens already, else it comes once the feed does. Notices end (the
    /// sequence finishes) when the feed stops.
    public func withSubscription<Result>(
        to topics: Topics, _ body: (Subscription) async throws -> Result
    ) async rethrows -> Result {
        let (id, subscription) = subscribe(to: topics)
        defer { unsubscribe(id, topics: topics) }
        return try await body(subscription)
    }

    /// A subscription to `topics` that lasts until it is ended (``OpenSubscription/end()``) or released: for a
    /// consumer that outlives the call that starts it, such as an answer streamed after its handler returned
    /// (the event stream). Prefer ``withSubscription(to:_:)`` wherever a scope holds the whole consumer.
    public func openSubscription(to topics: Topics) -> OpenSubscription {
        let (id, subscription) = subscribe(to: topics)
        return OpenSubscription(notices: subscription) { [weak self] in self?.unsubscribe(id, topics: topics) }
    }

    private func subscribe(to topics: Topics) -> (Int, Subscription) {
        let subscription = Subscription(topics: topics)
        let (id, listening, stopped) = state.withLock { state in
            defer { state.nextID += 1 }
            state.subscriptions[state.nextID] = subscription
            if topics.contains(.history) { state.followers += 1 }
            return (state.nextID, state.listening, state.stopped)
        }
        if stopped { subscription.finish() } else if listening { subscription.deliver(.resumed) }
        if topics.contains(.history) { nudges.deliver(.history) }
        return (id, subscription)
    }

    private func unsubscribe(_ id: Int, topics: Topics) {
        state.withLock { state in
            guard state.subscriptions.removeValue(forKey: id) != nil else { return }
            if topics.contains(.history) { state.followers -= 1 }
        }
    }

    private func deliver(_ notice: Notice) {
        let subscriptions = state.withLock { state in
            state.subscriptions.values.filter { subscription in
                switch notice {
                case .resumed, .interrupted: true
                case .identifiers: subscription.topics.contains(.identifiers)
                case .key: subscription.topics.contains(.keys)
                case .history: subscription.topics.contains(.history)
                }
            }
        }
        for subscription in subscriptions { subscription.deliver(notice) }
    }

    // MARK: - History

    /// Polls the history's mark while anyone needs it: followers, marks waiting to settle, pages waiting for a
    /// fresh position. Otherwise waits to be nudged, at no cost to the database.
    private func pollHistory(on connection: PostgresConnection) async throws {
        while true {
            let busy = state.withLock { $0.followers > 0 || $0.marks.isWaiting || !$0.pollWaiters.isEmpty }
            let deadline = busy ? NIODeadline.now() + TimeAmount(Self.followingPollInterval) : nil
            guard await nudges.next(until: deadline) != .ended else { return }
            try Task.checkCancellation()
            // Waiters registered from here on were asked after this poll's mark was taken, or while it was.
            let waiting = state.withLock { Set($0.pollWaiters.keys) }
            let rows = try await connection.query("SELECT assigned, running FROM history_mark()", logger: logger)
                .collect()
            guard let row = rows.first else { throw StoreInvariantViolation(description: "history_mark() answered no row") }
            let (assigned, running) = try row.decode((Int64, [String]).self)
            let (moved, waiters) = state.withLock { state in
                let moved = state.marks.record(assigned: assigned, running: Set(running))
                let waiters = waiting.compactMap { state.pollWaiters.removeValue(forKey: $0) }
                return (moved, waiters)
            }
            for waiter in waiters { waiter.wake() }
            if moved { deliver(.history) }
        }
    }

    /// The position readable once the feed has polled after this call (waiting at most `within`, for a feed that
    /// does not listen yet, or whose connection is down).
    func freshPosition(within limit: Duration = .seconds(1)) async -> Int64? {
        let waiter = Wakeup()
        let id = state.withLock { state -> Int? in
            guard !state.stopped else { return nil }
            defer { state.nextID += 1 }
            state.pollWaiters[state.nextID] = waiter
            return state.nextID
        }
        if let id {
            // Nudged once registered, so that the poll it wakes answers it.
            nudges.deliver(.history)
            await waiter.wait(for: limit)
            state.withLock { _ = $0.pollWaiters.removeValue(forKey: id) }
        }
        return readableThrough
    }

    /// One page of the events `filter` selects after `sequence`, oldest first, at most `limit`, among those that
    /// are readable (``readableThrough``); with `fresh`, once the feed has looked after this call. Read through
    /// `reader` when given (a background service's own connections), else through the feed's database.
    public func events(after sequence: Int64, filter: HistoryFilter = HistoryFilter(), limit: Int, fresh: Bool = false,
                       on reader: Database? = nil) async throws -> EventPage
    {
        let through = fresh ? await freshPosition() : readableThrough
        guard let through else { return EventPage(events: [], next: sequence) }
        return try await events(after: sequence, through: through, filter: filter, limit: limit, on: reader)
    }

    /// One page of the events `filter` selects after `sequence` up to `through`, a position ``readableThrough``
    /// has reached, oldest first, at most `limit`. The same arguments always give the same page: no event up to
    /// `through` can appear or change any more.
    public func events(after sequence: Int64, through: Int64, filter: HistoryFilter = HistoryFilter(), limit: Int,
                       on reader: Database? = nil) async throws -> EventPage
    {
        guard through > sequence else { return EventPage(events: [], next: sequence) }
        let events = try await (reader ?? database).history.list(filter, after: sequence, through: through, limit: limit)
        // Fewer than asked: every event up to `through` has been read, and none can appear there any more.
        let next = events.count < limit ? through : events.last?.sequence ?? through
        return EventPage(events: events, next: next)
    }

    /// Hands `body` the events `filter` selects after `sequence`, page by page in sequence order as they become
    /// readable, until `body` throws, the task is cancelled or the feed stops. It holds one page at a time.
    public func follow(after sequence: Int64, filter: HistoryFilter = HistoryFilter(), pageSize: Int = 500,
                       _ body: (EventPage) async throws -> Void) async throws {
        try await withSubscription(to: .history) { notices in
            var position = sequence
            while !Task.isCancelled {
                let page = try await events(after: position, filter: filter, limit: pageSize)
                if !page.events.isEmpty { try await body(page) }
                position = page.next
                if page.events.count < pageSize {
                    guard await notices.next() != nil else { return }
                }
            }
        }
    }
}

extension CatalogChanges {
    /// A subscription that is not bound to a scope (``CatalogChanges/openSubscription(to:)``): it ends when
    /// ``end()`` is called or when it is released, whichever comes first.
    public final class OpenSubscription: Sendable {
        /// The notices, as ``CatalogChanges/withSubscription(to:_:)`` hands them.
        public let notices: Subscription
        private let ending: Mutex<(@Sendable () -> Void)?>

        init(notices: Subscription, end: @escaping @Sendable () -> Void) {
            self.notices = notices
            ending = Mutex(end)
        }

        /// Stops the notices; what waits for one is answered `nil`.
        public func end() {
            let end = ending.withLock { ending in
                defer { ending = nil }
                return ending
            }
            end?()
            notices.finish()
        }

        deinit { end() }
    }
}

/// A page of history events in sequence order, and where the next page starts.
public struct EventPage: Sendable {
    public let events: [HistoryEvent]
    /// The last event's sequence; once every readable event has been read, the readable position itself, so
    /// that a filter that selects few events does not read the same stretch again.
    public let next: Int64
}

extension Database {
    /// A change feed on this database; a server runs one (as a service) and hands it to every consumer.
    public func changes(logger: Logger) -> CatalogChanges { CatalogChanges(database: self, logger: logger) }
}
