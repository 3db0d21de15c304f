import DequeModule
import Logging
import NIOCore
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// The service's connections to PostgreSQL: at most `size`, opened when first needed and kept open, each lent
/// to one operation at a time. At most `maxWaiting` operations wait for one, each for at most `waitTimeout`;
/// beyond, and whenever the database cannot be reached, an operation is refused at once with
/// ``StoreUnavailable``, so that a saturated or unreachable database makes requests fail fast instead of
/// piling up.
///
/// Why not PostgresNIO's `PostgresClient` pool: it sets an idle timer and a keep-alive timer each time a
/// connection goes back (three tasks each) and cancels them when it is leased again, and it hands a connection
/// over through a continuation and a task of its own. Measured under the benchmark's actions, leasing and
/// releasing through it cost the server about as much CPU as the rest of a request (docs/performance.md). Here
/// a lease is a lock and an array pop, a release a lock and a push, and the only timer is one sweep of the
/// waiters every ``sweepInterval``.
///
/// Connections are kept per event loop, and a lease prefers one of the loop it is made on: when the service
/// runs its tasks on the event loops (`iap-server serve` does), the operation's statements are then written,
/// answered and resumed on one thread, without waking another.
///
/// ``run()`` must be running (as a service of the application) for waits to end on time; when it ends, the
/// pool closes its idle connections and refuses new leases.
public final class ConnectionPool: Service, Sendable {
    /// How many operations hold a connection and how many wait for one, for metrics.
    public struct Load: Sendable {
        public let running: Int
        public let waiting: Int
    }

    /// How often waits that are over are ended.
    static let sweepInterval: Duration = .milliseconds(25)
    /// After a failed attempt to connect, none is made before this much time, doubled after each further
    /// failure up to ``maximumBackoff``; meanwhile a lease that finds no open connection is refused at once.
    static let firstBackoff: Duration = .milliseconds(100)
    static let maximumBackoff: Duration = .seconds(2)

    public let size: Int
    public let maxWaiting: Int
    public let waitTimeout: Duration
    private let configuration: PostgresConnection.Configuration
    private let loops: [any EventLoop]
    private let logger: Logger
    private let state: Mutex<State>
    private let nextConnectionID = Atomic<Int>(0)
    private let nextWaiterID = Atomic<UInt64>(0)

    /// - Parameters:
    ///   - configuration: how to reach the database.
    ///   - size: the most connections open at once, which is also how many operations run at once.
    ///   - maxWaiting: the most operations waiting for a connection; beyond, leases are refused at once.
    ///   - waitTimeout: how long an operation may wait for a connection before it is refused.
    public init(configuration: PostgresConnection.Configuration, size: Int, maxWaiting: Int, waitTimeout: Duration,
                eventLoopGroup: any EventLoopGroup = PostgresConnection.defaultEventLoopGroup, logger: Logger) {
        precondition(size >= 1, "a pool needs at least one connection")
        self.configuration = configuration
        self.size = size
        self.maxWaiting = maxWaiting
        self.waitTimeout = waitTimeout
        self.logger = logger
        var loops: [any EventLoop] = []
        for loop in eventLoopGroup.makeIterator() { loops.append(loop) }
        self.loops = loops
        state = Mutex(State(loops: loops.count))
    }

    public var load: Load {
        state.withLock { Load(running: $0.leased, waiting: $0.waiters.count) }
    }

    /// Ends waits that are over until cancelled or shut down gracefully (after the server has answered what it
    /// was serving); then closes the idle connections, refuses every waiting and later lease, and closes each
    /// leased connection when it comes back.
    public func run() async {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do { try await Task.sleep(for: Self.sweepInterval) } catch { break }
                self.endWaitsThatAreOver()
            }
        }
        shutDown()
    }

    /// A connection for one operation, from the current event loop when it has one idle; give it back with
    /// ``Lease/release()``.
    func lease() async throws -> Lease {
        let loop = loops.firstIndex { $0.inEventLoop }
        let clock = ContinuousClock()
        let decision = state.withLock { state -> Decision in
            if state.shuttingDown { return .refuse("the service is shutting down") }
            if let member = state.takeIdle(preferring: loop) { return .lease(member) }
            // A connection opened for this operation is its own: only waiting for a busy one counts.
            if let connect = state.startConnectingIfAllowed(size: size, now: clock.now, preferring: loop) {
                return .wait(connect: connect)
            }
            if state.open == 0 {
                return .refuse("the database is unavailable (\(state.lastFailure ?? "it cannot be reached"))")
            }
            guard state.waitingForBusy < maxWaiting else {
                return .refuse("the database is saturated: \(maxWaiting) requests are already waiting")
            }
            // Counted now, so that operations deciding at once cannot all take the last place in the queue.
            state.waitingForBusy += 1
            return .wait(connect: nil)
        }
        switch decision {
        case .lease(let member):
            return Lease(member: member, pool: self)
        case .refuse(let reason):
            throw StoreUnavailable(description: reason)
        case .wait(let connect):
            let forBusy = connect == nil
            if let connect { open(on: connect) }
            let id = nextWaiterID.add(1, ordering: .relaxed).newValue
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Lease, any Error>) in
                    let waiter = Waiter(id: id, deadline: clock.now + waitTimeout, forBusy: forBusy,
                                        continuation: continuation)
                    let handed = state.withLock { $0.enqueue(waiter, preferring: loop, cancelled: Task.isCancelled) }
                    if let handed { continuation.resume(with: handed.map { Lease(member: $0, pool: self) }) }
                }
            } onCancel: {
                let waiter = state.withLock { $0.removeWaiter(id: id) }
                waiter?.continuation.resume(throwing: CancellationError())
            }
        }
    }

    // MARK: Giving back, opening and closing

    /// Takes back a leased connection: to the longest waiter, or idle; a closed one makes room for a new one.
    fileprivate func giveBack(_ member: Member) {
        if member.connection.isClosed {
            forget(member, leased: true)
            return
        }
        let (waiter, close) = state.withLock { state -> (Waiter?, Bool) in
            state.leased -= 1
            return state.place(member)
        }
        if close { member.connection.close().whenComplete { _ in } }
        waiter?.continuation.resume(returning: Lease(member: member, pool: self))
    }

    /// Opens a connection on loop `index`, already counted in `open`, for the waiters.
    private func open(on index: Int) {
        let id = nextConnectionID.add(1, ordering: .relaxed).newValue
        PostgresConnection.connect(on: loops[index], configuration: configuration, id: id, logger: logger)
            .whenComplete { result in
                switch result {
                case .success(let connection): self.opened(Member(connection: connection, loop: index))
                case .failure(let error): self.failedToOpen(on: index, error)
                }
            }
    }

    private func opened(_ member: Member) {
        let (waiter, close) = state.withLock { state -> (Waiter?, Bool) in
            state.retryAt = nil
            state.backoff = Self.firstBackoff
            state.lastFailure = nil
            return state.place(member)
        }
        if close {
            member.connection.close().whenComplete { _ in }
            return
        }
        member.connection.closeFuture.whenComplete { _ in self.closed(member) }
        waiter?.continuation.resume(returning: Lease(member: member, pool: self))
    }

    /// A connection could not be opened: the database is away. With no connection left to serve them, every
    /// waiter is refused now rather than at the end of its wait.
    private func failedToOpen(on loop: Int, _ error: any Error) {
        let reason = Self.reason(error)
        logger.warning("cannot connect to the database", metadata: ["error": "\(reason)"])
        let refused = state.withLock { state -> [Waiter] in
            state.dropped(loop)
            state.lastFailure = reason
            state.retryAt = ContinuousClock.now + state.backoff
            state.backoff = min(state.backoff * 2, Self.maximumBackoff)
            guard state.open == 0 else { return [] }
            return state.removeAllWaiters()
        }
        for waiter in refused {
            waiter.continuation.resume(throwing: StoreUnavailable(
                description: "the database is unavailable (\(reason))"))
        }
    }

    /// Why a connection could not be opened, in words an operator can act on: PSQLError's own description is
    /// the same generic sentence for every failure. The server's SQLSTATE and message (such as 53300, "sorry,
    /// too many clients already") or the network's error; never a query, since none was sent.
    static func reason(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return String(String(describing: error).prefix(200)) }
        if let info = error.serverInfo, let state = info[.sqlState] {
            return String("SQLSTATE \(state): \(info[.message] ?? "")".prefix(200))
        }
        let underlying = error.underlying.map { ": \(String(describing: $0).prefix(160))" } ?? ""
        return "\(error.code)\(underlying)"
    }

    /// An open connection closed (the database ended it, or the network did): an idle one is dropped now, a
    /// leased one when it comes back; either way its place is free for a new one.
    private func closed(_ member: Member) {
        forget(member, leased: false)
    }

    private func forget(_ member: Member, leased: Bool) {
        let connect = state.withLock { state -> Int? in
            if leased { state.leased -= 1 }
            let wasIdle = state.removeIdle(member)
            // Counted once: when the close is seen while idle, or when it comes back if it was leased then.
            guard wasIdle || leased else { return nil }
            state.dropped(member.loop)
            guard !state.waiters.isEmpty else { return nil }
            return state.startConnectingIfAllowed(size: size, now: .now, preferring: nil)
        }
        if let connect { open(on: connect) }
    }

    private func endWaitsThatAreOver() {
        let now = ContinuousClock.now
        let over = state.withLock { state -> [Waiter] in
            var over: [Waiter] = []
            // Every wait is as long, so the longest waiters are the ones whose wait is over.
            while let first = state.waiters.first, first.deadline <= now, let waiter = state.popWaiter() {
                over.append(waiter)
            }
            return over
        }
        let milliseconds = waitTimeout.components.seconds * 1000
            + waitTimeout.components.attoseconds / 1_000_000_000_000_000
        for waiter in over {
            waiter.continuation.resume(throwing: StoreUnavailable(
                description: "no database connection became free within \(milliseconds) ms"))
        }
    }

    private func shutDown() {
        let (idle, waiters) = state.withLock { state -> ([Member], [Waiter]) in
            state.shuttingDown = true
            let idle = state.idle.flatMap { $0 }
            for member in idle { state.dropped(member.loop) }
            state.idle = state.idle.map { _ in [] }
            return (idle, state.removeAllWaiters())
        }
        for member in idle { member.connection.close().whenComplete { _ in } }
        for waiter in waiters {
            waiter.continuation.resume(throwing: StoreUnavailable(description: "the service is shutting down"))
        }
    }

    // MARK: State

    fileprivate struct Member: Sendable {
        let connection: PostgresConnection
        /// The index of its event loop.
        let loop: Int
    }

    private struct Waiter {
        let id: UInt64
        let deadline: ContinuousClock.Instant
        /// Whether it waits for a busy connection (and takes a place in the bounded queue), rather than for one
        /// opened for it.
        let forBusy: Bool
        let continuation: CheckedContinuation<Lease, any Error>
    }

    private enum Decision {
        case lease(Member)
        case refuse(String)
        /// Wait for a connection, opening one on that loop first if the index is given.
        case wait(connect: Int?)
    }

    private struct State {
        /// Open connections nobody holds, per event loop.
        var idle: [[Member]]
        /// Connections open or being opened, in all and per event loop.
        var open = 0
        var openPerLoop: [Int]
        var leased = 0
        var waiters: Deque<Waiter> = []
        /// Waiters for a busy connection, queued or about to be: at most `maxWaiting`.
        var waitingForBusy = 0
        var retryAt: ContinuousClock.Instant?
        var backoff = ConnectionPool.firstBackoff
        var lastFailure: String?
        var shuttingDown = false

        init(loops: Int) {
            idle = Array(repeating: [], count: loops)
            openPerLoop = Array(repeating: 0, count: loops)
        }

        /// An idle connection, of `loop` if it has one; one seen closed meanwhile is dropped on the way.
        mutating func takeIdle(preferring loop: Int?) -> Member? {
            if let loop, let member = takeIdle(of: loop) { return member }
            for index in idle.indices {
                if let member = takeIdle(of: index) { return member }
            }
            return nil
        }

        private mutating func takeIdle(of loop: Int) -> Member? {
            while let member = idle[loop].popLast() {
                if member.connection.isClosed {
                    dropped(member.loop)
                    continue
                }
                leased += 1
                return member
            }
            return nil
        }

        /// Places a connection nobody holds: lent to the longest waiter (answered with it), or idle; while
        /// shutting down, uncounted and to be closed (`close`).
        mutating func place(_ member: Member) -> (waiter: Waiter?, close: Bool) {
            if shuttingDown {
                dropped(member.loop)
                return (nil, true)
            }
            if let waiter = popWaiter() {
                leased += 1
                return (waiter, false)
            }
            idle[member.loop].append(member)
            return (nil, false)
        }

        mutating func removeIdle(_ member: Member) -> Bool {
            guard let index = idle[member.loop].firstIndex(where: { $0.connection === member.connection }) else {
                return false
            }
            idle[member.loop].remove(at: index)
            return true
        }

        /// Counts a new connection and answers the loop to open it on, if the pool has room and is not waiting
        /// out a failure: the loop with the fewest, `loop` among those. The connections spread evenly over
        /// the loops, so that requests on every loop find connections of their own.
        mutating func startConnectingIfAllowed(size: Int, now: ContinuousClock.Instant, preferring loop: Int?) -> Int? {
            guard open < size, !shuttingDown else { return nil }
            if let retryAt, now < retryAt { return nil }
            let fewest = openPerLoop.min() ?? 0
            let chosen = loop.flatMap { openPerLoop[$0] == fewest ? $0 : nil }
                ?? openPerLoop.firstIndex(of: fewest) ?? 0
            open += 1
            openPerLoop[chosen] += 1
            return chosen
        }

        /// Queues `waiter`, or answers what it gets at once: a connection that came back, or the refusal of a
        /// database that could not be reached, while it was being set up.
        mutating func enqueue(_ waiter: Waiter, preferring loop: Int?, cancelled: Bool) -> Result<Member, any Error>? {
            if cancelled {
                left(waiter)
                return .failure(CancellationError())
            }
            if shuttingDown {
                left(waiter)
                return .failure(StoreUnavailable(description: "the service is shutting down"))
            }
            if let member = takeIdle(preferring: loop) {
                left(waiter)
                return .success(member)
            }
            if open == 0 {
                left(waiter)
                return .failure(StoreUnavailable(
                    description: "the database is unavailable (\(lastFailure ?? "it cannot be reached"))"))
            }
            waiters.append(waiter)
            return nil
        }

        mutating func popWaiter() -> Waiter? {
            guard let waiter = waiters.popFirst() else { return nil }
            left(waiter)
            return waiter
        }

        mutating func removeWaiter(id: UInt64) -> Waiter? {
            guard let index = waiters.firstIndex(where: { $0.id == id }) else { return nil }
            let waiter = waiters.remove(at: index)
            left(waiter)
            return waiter
        }

        mutating func removeAllWaiters() -> [Waiter] {
            let all = Array(waiters)
            waiters.removeAll()
            for waiter in all { left(waiter) }
            return all
        }

        private mutating func left(_ waiter: Waiter) {
            if waiter.forBusy { waitingForBusy -= 1 }
        }

        /// Uncounts a connection of `loop` that closed or could not be opened.
        mutating func dropped(_ loop: Int) {
            open -= 1
            openPerLoop[loop] -= 1
        }
    }
}

extension ConnectionPool {
    /// A connection lent to one operation, given back once by ``release()`` (or when the lease is dropped).
    final class Lease: Sendable {
        fileprivate let member: Member
        private let pool: ConnectionPool
        private let released = Atomic<Bool>(false)

        fileprivate init(member: Member, pool: ConnectionPool) {
            self.member = member
            self.pool = pool
        }

        var connection: PostgresConnection { member.connection }

        /// Gives the connection back; later calls do nothing.
        func release() {
            guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
            pool.giveBack(member)
        }

        deinit { release() }
    }
}
