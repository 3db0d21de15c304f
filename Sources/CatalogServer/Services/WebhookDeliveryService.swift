import CatalogCore
import CatalogStore
import Foundation
import Logging
import PurchaseCore
import ServiceLifecycle
import Synchronization
import WebhookClient

/// Delivers the history's events to webhook endpoints (docs/events.md), beside the HTTP server.
///
/// Each endpoint has a cursor over the history in the database; the process that holds the endpoint's lease
/// reads the events after it from ``CatalogChanges`` (in sequence order, only where no event can still appear),
/// sends them one at a time, in order, and moves the cursor after the receiver has answered 2xx (at least once:
/// a process killed after a delivery and before the cursor moved delivers that event again). A failed event is
/// tried again on ``WebhookSettings/retry``'s schedule, holding back the endpoint's later events, until the
/// window ends and the endpoint is disabled. Leases are taken with `FOR UPDATE SKIP LOCKED` and renewed every
/// ``WebhookSettings/claimInterval``, so several processes share the endpoints, each endpoint delivered by one
/// at a time; a killed process's endpoints are taken over once its leases run out.
///
/// It never holds a transaction, and a database connection only for a statement: a slow or dead receiver holds
/// one task of this service, never the API. While the API is busy, each page of deliveries waits a moment for it
/// (``RequestsInFlight``). Its statements (leases, pages of events, cursors) run on the
/// PostgreSQL client's connections, not the requests' pool: with the pool busy, they would take places in its
/// bounded queue that belong to requests. Its memory is a page of events per endpoint.
final class WebhookDeliveryService: Service, Sendable {
    let database: Database
    let changes: CatalogChanges
    let sender: WebhookSender
    let settings: WebhookSettings
    /// The API's requests in flight, which deliveries give way to.
    let requests: RequestsInFlight
    let logger: Logger
    /// This process's name in the leases it takes.
    let holder = UUID()

    private struct Worker {
        let task: Task<Void, Never>
        let generation: Int64
        let token: UUID
    }

    private struct State {
        var workers: [UUID: Worker] = [:]
        var stopping = false
    }

    private let state = Mutex(State())
    private let wakeups = Wakeup()
    private let bodies = WebhookBodies()

    /// Events read per page, and delivered events recorded per statement at most.
    static let pageSize = 100
    /// How long delivered events may wait to be recorded (the cursor moved) while more are sent.
    static let recordingDelay: Duration = .milliseconds(100)
    /// How many deliveries between two prunings of an endpoint's attempts.
    static let pruningInterval = 5_000

    init(database: Database, changes: CatalogChanges, sender: WebhookSender, settings: WebhookSettings,
         requests: RequestsInFlight, logger: Logger) {
        self.database = database
        self.changes = changes
        self.sender = sender
        self.settings = settings
        self.requests = requests
        self.logger = logger
    }

    /// Looks for endpoints and renews leases now (an endpoint was created, or its cursor moved back).
    func wake() {
        wakeups.wake()
    }

    func run() async {
        guard settings.delivers else {
            try? await gracefulShutdown()
            await sender.shutdown()
            return
        }
        await withGracefulShutdownHandler {
            while !Task.isCancelled && !state.withLock({ $0.stopping }) {
                do {
                    // Ends when the server stops: with the database gone, its wait for a connection would
                    // otherwise last until the pool gives up, a minute later.
                    try await cancelWhenGracefulShutdown { try await self.tend() }
                } catch where state.withLock({ $0.stopping }) {
                    break
                } catch {
                    logger.warning("webhook leases could not be renewed or taken; trying again",
                                   metadata: ["error": "\(String(reflecting: error))"])
                }
                await wakeups.wait(for: settings.claimInterval)
            }
        } onGracefulShutdown: {
            self.state.withLock { $0.stopping = true }
            self.wakeups.finish()
        }
        // Every worker records what it delivered before it ends; then the leases go back at once.
        let workers = state.withLock { state in
            state.stopping = true
            return state.workers
        }
        for worker in workers.values { worker.task.cancel() }
        for worker in workers.values { await worker.task.value }
        try? await database.webhooks.release(holder: holder, ids: Array(workers.keys))
        await sender.shutdown()
    }

    /// Renews the leases this process holds (stopping the workers of those it lost, or whose cursor was moved
    /// by someone else), then takes free endpoints up to the limit and starts their workers.
    private func tend() async throws {
        let running = state.withLock { $0.workers }
        let held = try await database.webhooks.renew(holder: holder, ids: Array(running.keys), lease: settings.lease)
        for (id, worker) in running where held[id] != worker.generation {
            worker.task.cancel()
            logger.debug("webhook endpoint let go", metadata: ["webhook.id": "\(id)"])
        }
        let keep = state.withLock { state in
            state.workers = state.workers.filter { held[$0.key] == $0.value.generation }
            return Array(state.workers.keys)
        }
        let room = settings.endpointsPerProcess - keep.count
        guard room > 0 else { return }
        let leased = try await database.webhooks.claim(holder: holder, lease: settings.lease, limit: room, except: keep)
        for endpoint in leased {
            let id = endpoint.endpoint.id
            let token = UUID()
            state.withLock { state in
                // A worker that ends (its lease or cursor is someone else's, the endpoint was disabled, the database
                // failed) leaves the list; the endpoint, if still this process's, is taken again at the next turn.
                let task = Task {
                    await self.deliver(endpoint)
                    self.state.withLock { state in
                        if state.workers[id]?.token == token { state.workers[id] = nil }
                    }
                }
                state.workers[id] = Worker(task: task, generation: endpoint.generation, token: token)
                if state.stopping { task.cancel() }
            }
        }
    }

    // MARK: - One endpoint

    /// What one endpoint's worker keeps between events.
    private struct Progress {
        var position: Int64
        var recorded: Int64
        var delivered: [WebhookRepository.Delivered] = []
        var lastRecording = ContinuousClock.now
        var failedAttempts: Int
        var failingSince: Date?
        var nextAttemptAt: Date?
        var sincePruning = 0
        /// The recording under way while later events are sent: whether the endpoint was still this process's.
        var recording: Task<Bool, any Error>?
    }

    /// Delivers to one leased endpoint until cancelled, or until its lease or cursor is someone else's.
    private func deliver(_ leased: WebhookRepository.Leased) async {
        let endpoint = leased.endpoint
        let metadata: Logger.Metadata = ["webhook.id": "\(endpoint.id)", "webhook.origin": "\(endpoint.url.origin)"]
        var progress = Progress(position: endpoint.deliveredThrough, recorded: endpoint.deliveredThrough,
                                failedAttempts: endpoint.failedAttempts, failingSince: endpoint.failingSince,
                                nextAttemptAt: endpoint.nextAttemptAt)
        // One kind can be asked of the database; several are picked here.
        let filter = HistoryFilter(visibleApps: endpoint.apps, kind: endpoint.kinds?.count == 1 ? endpoint.kinds?.first : nil)
        logger.debug("delivering to webhook endpoint", metadata: metadata)
        do {
            try await changes.withSubscription(to: .history) { subscription in
                var notices = subscription.makeAsyncIterator()
                // The page after a full one, read while the full one is sent, and where it starts.
                var ahead: (after: Int64, page: Task<EventPage, any Error>)?
                defer { ahead?.page.cancel() }
                while !Task.isCancelled {
                    if let due = progress.nextAttemptAt, due > Date() {
                        try await Task.sleep(for: .milliseconds(Int(due.timeIntervalSinceNow * 1000) + 1))
                        continue
                    }
                    let page: EventPage
                    if let read = ahead, read.after == progress.position {
                        page = try await read.page.value
                    } else {
                        ahead?.page.cancel()
                        page = try await changes.events(after: progress.position, filter: filter, limit: Self.pageSize,
                                                        on: database)
                    }
                    ahead = nil
                    if page.events.isEmpty {
                        progress.position = max(progress.position, page.next)
                        guard try await record(&progress, endpoint, leased.generation, force: false, idle: true) else { return }
                        guard await notices.next() != nil else { return }
                        continue
                    }
                    try await requests.giveWay()
                    if page.events.count == Self.pageSize {
                        // More are waiting: the next page is read while this one is sent. It starts where the cursor
                        // stands once this page is delivered; if an event fails, the cursor stands before it and the
                        // page read ahead is not used.
                        let after = page.next
                        ahead = (after, Task { [changes, database] in
                            try await changes.events(after: after, filter: filter, limit: Self.pageSize, on: database)
                        })
                    }
                    var failed = false
                    for event in page.events {
                        try Task.checkCancellation()
                        guard endpoint.wants(kind: event.record.kind, app: event.record.bundleID) else {
                            progress.position = event.sequence
                            continue
                        }
                        guard try await attempt(event, &progress, leased, metadata: metadata) else {
                            failed = true
                            break
                        }
                    }
                    if !failed { progress.position = max(progress.position, page.next) }
                    guard try await record(&progress, endpoint, leased.generation, force: false, idle: false) else { return }
                    if progress.sincePruning >= Self.pruningInterval {
                        progress.sincePruning = 0
                        try await database.webhooks.prune(endpoint.id)
                    }
                }
            }
        } catch is CancellationError {
        } catch let ended as DeliveryEnded {
            logger.info("webhook endpoint deliveries ended", metadata: metadata.merging(["reason": "\(ended.reason)"]) { $1 })
        } catch {
            logger.warning("webhook deliveries stopped; the endpoint will be taken again",
                           metadata: metadata.merging(["error": "\(String(reflecting: error))"]) { $1 })
        }
        // What was delivered is recorded even when cancelled (graceful shutdown), outside the cancelled task.
        let final = progress
        _ = await Task {
            var final = final
            return try? await self.record(&final, endpoint, leased.generation, force: true, idle: false)
        }.value
    }

    private struct DeliveryEnded: Error {
        let reason: String
    }

    /// Sends `event` once; answers whether it was delivered. A failure is recorded with its next attempt, or
    /// disables the endpoint once the retry window is over.
    private func attempt(_ event: HistoryEvent, _ progress: inout Progress, _ leased: WebhookRepository.Leased,
                         metadata: Logger.Metadata) async throws -> Bool {
        let endpoint = leased.endpoint
        let number = progress.failedAttempts + 1
        let at = Date()
        let started = ContinuousClock.now
        // Its id is the same at every attempt and every redelivery; its timestamp is the time of sending.
        let message = WebhookMessage(id: "evt_\(event.sequence)", timestamp: Int64(at.timeIntervalSince1970),
                                     body: try bodies.body(for: event))
        let outcome = await sender.send(message, to: endpoint.url, secret: leased.secret)
        let duration = ContinuousClock.now - started
        let status: Int?
        let reason: String
        let kind: WebhookAttempt.Outcome
        switch outcome {
        case .delivered(let answered):
            progress.delivered.append(.init(sequence: event.sequence, attempt: number, at: at, duration: duration,
                                            status: answered))
            progress.position = event.sequence
            progress.failedAttempts = 0
            progress.failingSince = nil
            progress.nextAttemptAt = nil
            progress.sincePruning += 1
            return true
        case .failed(let answered, let why):
            (status, reason, kind) = (answered, why, .failed)
        case .refused(let why):
            (status, reason, kind) = (nil, why, .refused)
        }
        // What was delivered before is recorded first: the cursor stands just before the failing event.
        guard try await record(&progress, endpoint, leased.generation, force: true, idle: false) else {
            throw DeliveryEnded(reason: "the endpoint is no longer this process's")
        }
        let failingSince = progress.failingSince ?? at
        var generator = SystemRandomNumberGenerator()
        if let next = settings.retry.nextAttempt(retry: number, after: Date(), submittedAt: failingSince,
                                                 using: &generator) {
            guard try await database.webhooks.recordFailure(
                endpoint.id, holder: holder, generation: leased.generation, sequence: event.sequence, attempt: number,
                at: at, duration: duration, status: status, outcome: kind, error: reason, failingSince: failingSince,
                nextAttemptAt: next)
            else { throw DeliveryEnded(reason: "the endpoint is no longer this process's") }
            progress.failedAttempts = number
            progress.failingSince = failingSince
            progress.nextAttemptAt = next
            logger.info("webhook delivery failed; trying again", metadata: metadata.merging([
                "event.sequence": "\(event.sequence)", "attempt": "\(number)", "reason": "\(reason)",
                "next_attempt_at": "\(next)",
            ]) { $1 })
            return false
        }
        let disabledReason = "event \(event.sequence) was not delivered for \(settings.retry.retryFor) "
            + "(\(number) attempts; the last: \(reason))"
        let record = HistoryRecord(
            kind: .webhookDisabled, bundleID: nil, actor: Actor(keyID: nil, name: "webhook delivery", role: nil),
            reason: String(disabledReason.prefix(1000)), changes: endpoint.historyFields)
        _ = try await database.webhooks.disable(
            endpoint.id, holder: holder, generation: leased.generation, sequence: event.sequence, attempt: number, at: at,
            duration: duration, status: status, outcome: kind, error: reason, reason: disabledReason, event: record)
        logger.warning("webhook endpoint disabled", metadata: metadata.merging(["reason": "\(disabledReason)"]) { $1 })
        throw DeliveryEnded(reason: "disabled")
    }

    /// Moves the cursor and records the delivered events, when `force`d, when enough have waited, or when the
    /// worker is about to wait (`idle`) with something to record; answers whether the endpoint is still this
    /// process's (if not, the worker stops). While events are being sent (neither forced nor idle) the statement
    /// runs beside them, one at a time: its answer is read before the next recording, which costs at most the
    /// events of one more page sent again after a lost lease (at least once, as ever).
    private func record(_ progress: inout Progress, _ endpoint: WebhookEndpoint, _ generation: Int64, force: Bool,
                        idle: Bool) async throws -> Bool {
        let waited = ContinuousClock.now - progress.lastRecording
        let due = force || progress.delivered.count >= Self.pageSize || (!progress.delivered.isEmpty && waited >= Self.recordingDelay)
            || (idle && !progress.delivered.isEmpty)
            || (idle && progress.position > progress.recorded && waited >= .seconds(5))
        if force || idle || due, let previous = progress.recording {
            progress.recording = nil
            guard try await previous.value else { return false }
        }
        guard due, progress.position > progress.recorded || !progress.delivered.isEmpty else { return true }
        let (through, delivered) = (progress.position, progress.delivered)
        progress.recorded = progress.position
        progress.delivered.removeAll(keepingCapacity: true)
        progress.lastRecording = .now
        let advance = { @Sendable [database, holder, lease = settings.lease] in
            try await database.webhooks.advance(endpoint.id, holder: holder, generation: generation, through: through,
                                                delivered: delivered, lease: lease)
        }
        if force || idle { return try await advance() }
        progress.recording = Task { try await advance() }
        return true
    }
}
