import AppStoreClient
import CatalogStore
import Foundation
import Logging
import PurchaseCore
import ServiceLifecycle

/// Verifies queued receipts with the App Store, beside the HTTP server: one per server process, all sharing the
/// queue in PostgreSQL (docs/purchases.md, "The queue").
///
/// It leases due submissions (``SubmissionQueue``), at most `APPSTORE_CONCURRENCY` at once, and holds nothing in
/// memory beyond them: each leased submission is one task asking the App Store (``VerifyReceiptClient``, which
/// then never makes a caller wait) with the app's shared secret (its store settings, read as intake reads them:
/// ``StoreSettingsCache``), then recording the outcome ``ReceiptSubmissionRule`` decides, with the outcomes of
/// other attempts finishing at the same time, in one transaction, and telling this process's `?wait` readers
/// (``SubmissionSignals``). It leases as soon as this process queues a receipt (``SubmissionSignals``) or a place
/// comes free, looks for other processes' work every `poll` when idle, and sleeps until the next retry or lease
/// end when that is sooner. Its statements run on connections of its own (`database` without the requests' pool),
/// so that it never takes a request's connection or place in line, nor waits behind requests; and while the
/// process answers many requests at once, each round of leases gives way to them first (``RequestsInFlight``).
///
/// Stopping (graceful shutdown, after the HTTP server has drained): it leases no more, lets the attempts in flight
/// finish for at most `shutdownGrace`, and gives the leases of those still asking back to the queue, due now.
/// A process killed outright gives nothing back: its leases expire and other processes take them.
///
/// Logs name submissions by id, never the receipt or the shared secret.
final class ReceiptVerificationService: Service {
    private let database: Database
    private let queue: SubmissionQueue
    private let signals: SubmissionSignals
    private let storeSettings: StoreSettingsCache
    /// Rung when work may be waiting: this process queued a receipt, an operator retried one, a leased place came
    /// free, the service is stopping.
    private let work = Wakeup()
    private let client: VerifyReceiptClient
    private let settings: ReceiptVerificationSettings
    private let rule: ReceiptSubmissionRule
    private let metrics: ReceiptVerificationMetrics
    private let logger: Logger
    private let held = HeldAttempts()
    private let schema: SchemaReady
    private let requests: RequestsInFlight

    /// The shortest pause between two leases while others hold the due submissions (they are leasing them now).
    private static let contendedPause: Duration = .milliseconds(100)
    /// How long a busy worker lets places come free after the first, so that one statement leases several.
    private static let gathering: Duration = .milliseconds(20)

    init(database: Database, signals: SubmissionSignals, storeSettings: StoreSettingsCache,
         settings: ReceiptVerificationSettings, metrics: ReceiptVerificationMetrics, schema: SchemaReady,
         requests: RequestsInFlight = RequestsInFlight(), logger: Logger) {
        self.database = database
        self.schema = schema
        self.requests = requests
        queue = database.queue
        self.signals = signals
        self.storeSettings = storeSettings
        self.settings = settings
        self.metrics = metrics
        self.logger = logger
        client = VerifyReceiptClient(configuration: settings.appStore)
        rule = ReceiptSubmissionRule(schedule: settings.retrySchedule)
        metrics.observe { [held, client] in (held.count, client.inFlight) }
    }

    func run() async throws {
        // Not one statement before the migrations (SchemaReady says why); stopping before them ends the wait.
        await cancelWhenGracefulShutdown { [schema] in await schema.wait() }
        guard schema.isOpen else {
            try? await client.shutdown()
            return
        }
        logger.info("receipt verification started", metadata: [
            "appstore.production": "\(settings.appStore.productionURL)",
            "appstore.sandbox": "\(settings.appStore.sandboxURL)",
            "appstore.concurrency": "\(settings.appStore.concurrency)",
            "appstore.timeout_ms": "\(settings.appStore.timeout.components.seconds * 1000 + settings.appStore.timeout.components.attoseconds / 1_000_000_000_000_000)",
            "queue.lease_seconds": "\(settings.lease.components.seconds)",
        ])
        let listening = signals.onReceiptsQueued { [work] in work.wake() }
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                var pause = Duration.zero
                var failures = 0
                while !held.isStopping && !Task.isCancelled {
                    if pause > .zero {
                        await work.wait(for: pause)
                        if held.count > 0 && !held.isStopping { try? await Task.sleep(for: Self.gathering) }
                        if held.isStopping || Task.isCancelled { break }
                    }
                    pause = settings.poll
                    let room = settings.appStore.concurrency - held.count
                    guard room > 0 else { continue }  // a place coming free wakes the wait
                    // Queued receipts are durable: while the API is busy they wait for it, a round at a time.
                    _ = try? await requests.giveWay()
                    if held.isStopping || Task.isCancelled { break }
                    let asked = min(room, settings.leaseBatch)
                    do {
                        // Each wait for the database ends when the server stops: with the database gone, nothing
                        // else would end it before the pool gives up, a minute later. A lease taken but not read
                        // stays leased until it expires, as after a crash.
                        let leases = try await cancelWhenGracefulShutdown { [queue, settings] in
                            try await queue.lease(asked, for: settings.lease)
                        }
                        let leasedAt = ContinuousClock.now
                        let secrets: [String: AppStoreSharedSecret]
                        do {
                            secrets = try await cancelWhenGracefulShutdown { try await self.sharedSecrets(of: leases) }
                        } catch {
                            // Nothing was asked: the leases go back at once (or expire, if the database is gone).
                            _ = try? await cancelWhenGracefulShutdown { [queue] in try await queue.release(leases) }
                            throw error
                        }
                        for lease in leases {
                            held.add(lease)
                            group.addTask {
                                await self.attempt(lease, sharedSecret: secrets[lease.bundleID], leasedAt: leasedAt)
                            }
                        }
                        if failures > 0 {
                            logger.notice("receipt queue reachable again", metadata: ["failures": "\(failures)"])
                            failures = 0
                        }
                        if leases.count == asked {
                            pause = .zero  // more may be due now
                        } else if let next = try await cancelWhenGracefulShutdown({ [queue] in try await queue.untilNextDue() }) {
                            pause = min(settings.poll, max(next, Self.contendedPause))
                        }
                    } catch {
                        if held.isStopping { break }
                        failures += 1
                        if failures == 1 {
                            logger.warning("cannot lease receipts; trying again", metadata: ["error": "\(error)"])
                        }
                    }
                }
                // Stopping: the attempts in flight finish within the grace; those still asking then are given back.
                group.addTask { await self.drain() }
            }
        } onGracefulShutdown: { [held, work] in
            held.stop()
            work.wake()
        }
        signals.stopListening(listening)
        let released = held.takeReleased()
        var given = 0
        if !released.isEmpty {
            do {
                given = try await queue.release(released)
            } catch {
                logger.warning("cannot give leases back; they expire instead",
                               metadata: ["count": "\(released.count)", "error": "\(error)"])
            }
        }
        try? await client.shutdown()
        logger.info("receipt verification stopped", metadata: ["released": "\(given)"])
    }

    /// The shared secret of each app among `leases`, read once per app and lease through the store settings'
    /// cache (a lease of 256 receipts of one app is one read at most, not 256).
    private func sharedSecrets(of leases: [SubmissionQueue.Lease]) async throws -> [String: AppStoreSharedSecret] {
        var secrets: [String: AppStoreSharedSecret] = [:]
        for bundleID in Set(leases.map(\.bundleID)) {
            secrets[bundleID] = try await storeSettings.settings(bundleID, from: database.storeSettings)?.sharedSecret
        }
        return secrets
    }

    /// Waits for the attempts in flight, at most the grace, then stops those still asking the App Store.
    private func drain() async {
        let deadline = ContinuousClock.now + settings.shutdownGrace
        while held.count > 0 && ContinuousClock.now < deadline && !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(50))
        }
        client.cancelCalls()
    }

    /// One attempt of a leased submission: ask the App Store, then record what follows.
    private func attempt(_ lease: SubmissionQueue.Lease, sharedSecret: AppStoreSharedSecret?,
                         leasedAt: ContinuousClock.Instant) async {
        defer {
            held.remove(lease.submissionID)
            work.wake()
        }
        var logger = logger
        logger[metadataKey: "submission.id"] = "\(lease.submissionID)"
        logger[metadataKey: "submission.attempt"] = "\(lease.attempts)"
        logger[metadataKey: "app"] = "\(lease.bundleID)"
        guard let receipt = lease.receipt else {
            await record(.receiptMissing(lease), of: lease, leasedAt: leasedAt, logger: logger)
            return
        }
        let started = ContinuousClock.now
        let outcome: ReceiptOutcome
        do {
            // Stopping ends the call (`cancelCalls`), not this task: the recording of other attempts goes on.
            outcome = try await client.verify(receipt, bundleId: lease.bundleID, sharedSecret: sharedSecret,
                                              logger: logger)
        } catch {
            held.released(lease)
            metrics.count(.released)
            return
        }
        metrics.verification(took: ContinuousClock.now - started)
        let step = rule.step(after: outcome, attempt: .init(
            number: lease.attempts, malformedAnswersBefore: lease.malformedAnswers, submittedAt: lease.submittedAt,
            endedAt: Date()))
        await record(SubmissionQueue.Outcome(lease, step: step), of: lease, leasedAt: leasedAt, logger: logger)
    }

    /// Records `outcome`, trying again while the database is unreachable for as long as the lease lasts (then the
    /// lease expires and the attempt is made again, by whichever process leases it first).
    private func record(_ outcome: SubmissionQueue.Outcome, of lease: SubmissionQueue.Lease,
                        leasedAt: ContinuousClock.Instant, logger: Logger) async {
        let deadline = leasedAt + settings.lease
        var outcome = outcome
        var pause: Duration = .milliseconds(200)
        var refusedOnce = false
        while true {
            do {
                if try await queue.record(outcome) {
                    signals.outcomeRecorded(lease.submissionID)
                    count(outcome, logger: logger)
                } else {
                    metrics.count(.superseded)
                    logger.notice("receipt attempt not recorded: its lease had expired and another worker took it")
                }
                return
            } catch is StoreUnavailable {
                guard ContinuousClock.now + pause < deadline else {
                    metrics.count(.unrecorded)
                    logger.warning("receipt attempt not recorded: the database is unreachable; it is made again once the lease expires")
                    return
                }
                try? await Task.sleep(for: pause)
                pause = min(pause * 2, .seconds(5))
            } catch {
                // The database refused what was to be recorded: a fault of ours. The submission fails visibly (an
                // operator may retry it once it is mended) instead of being verified again and again.
                logger.error("receipt attempt could not be recorded", metadata: [
                    "submission.status": "\(outcome.status.rawValue)", "error": "\(error)",
                ])
                guard !refusedOnce else {
                    metrics.count(.unrecorded)
                    return
                }
                refusedOnce = true
                outcome = SubmissionQueue.Outcome(
                    submissionID: lease.submissionID, attempts: lease.attempts, status: .failed,
                    appleStatus: outcome.appleStatus,
                    problems: ["The App Store's answer could not be recorded (the server's log names this submission); "
                               + "an operator may retry it."])
            }
        }
    }

    private func count(_ outcome: SubmissionQueue.Outcome, logger: Logger) {
        var metadata: Logger.Metadata = ["submission.status": "\(outcome.status.rawValue)"]
        if let status = outcome.appleStatus { metadata["appstore.status"] = "\(status)" }
        switch outcome.status {
        case .verified:
            metrics.count(.verified)
            metadata["transactions"] = "\(outcome.transactions.count)"
            logger.debug("receipt verified", metadata: metadata)
        case .invalid:
            metrics.count(.invalid)
            logger.info("receipt invalid", metadata: metadata)
        case .retrying:
            metrics.count(.retrying)
            logger.debug("receipt attempt undecided; retrying", metadata: metadata)
        case .failed:
            metrics.count(.failed)
            metadata["problem"] = "\(outcome.problems.last ?? "")"
            logger.warning("receipt failed", metadata: metadata)
        case .queued, .verifying:
            break
        }
    }
}
