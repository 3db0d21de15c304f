import AppStoreClient
import AppStoreStandIn
import CatalogCore
import CatalogServer
import CatalogStore
import CatalogTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import PostgresNIO
import PurchaseCore
import Testing

/// The receipt verification worker end to end: the application as `serve` builds it (its worker polling the
/// queue) on a database of its own, the stand-in App Store as a real HTTP server on a free port, receipts posted
/// to the API with a client key (or queued as intake queues them), and what the API, the queue, the ledger, the
/// history and the stand-in show afterwards. The retry
/// schedule is shortened to 100–400 ms so that retried paths take a second, not minutes.
@Suite("Receipt verification")
struct ReceiptVerificationTests {
    /// The worker's settings for the stand-in at `base`.
    static func settings(_ base: URL, timeout: Duration = .seconds(10), concurrency: Int = 16,
                         retryFor: Duration = .seconds(120)) -> ReceiptVerificationSettings {
        var appStore = AppStoreClientConfiguration.standard
        appStore.productionURL = base.appendingPathComponent("verifyReceipt")
        appStore.sandboxURL = base.appendingPathComponent("sandbox/verifyReceipt")
        appStore.timeout = timeout
        appStore.concurrency = concurrency
        appStore.waitingCallers = concurrency
        appStore.retryFor = retryFor
        var settings = ReceiptVerificationSettings(appStore: appStore)
        settings.poll = .milliseconds(100)
        settings.retrySchedule = RetrySchedule(firstDelay: .milliseconds(100), maximumDelay: .milliseconds(400),
                                               retryFor: retryFor, jitter: 0.2)
        return settings
    }

    /// Runs `body` with a stand-in (`store`) on a free port and the application on `suite`'s own database, its
    /// worker set by `adjust`; the application stops (gracefully) when `body` returns.
    static func run<Result: Sendable>(
        _ suite: String, store: StandInAppStore, limits: ServiceLimits? = nil, mode: TestingSetup = .router,
        worker adjust: @escaping @Sendable (inout ReceiptVerificationSettings) -> Void = { _ in },
        _ body: @Sendable (DatabaseURL, any TestClientProtocol) async throws -> Result
    ) async throws -> Result {
        let url = try await TestDatabase.forSuite(suite)
        let service = try await TestDatabase.serviceURL(for: url)
        var quiet = Logger(label: "appstore-standin")
        quiet.logLevel = .critical
        return try await StandInServer.withRunning(store, logger: quiet) { base in
            var settings = settings(base)
            adjust(&settings)
            var arguments = TestArguments(databaseURL: service, migrationDatabaseURL: url, receiptVerification: settings)
            if let limits { arguments.limits = limits }
            let app = try await buildApplication(arguments)
            return try await app.test(mode) { client in try await body(url, client) }
        }
    }

    /// Sends a request with `key` (and a JSON body) to the application.
    static func send(_ client: any TestClientProtocol, _ method: HTTPRequest.Method, _ path: String, key: String,
                     json: String? = nil) async throws -> TestResponse {
        var headers: HTTPFields = [.authorization: "Bearer \(key)"]
        if json != nil { headers[.contentType] = "application/json" }
        return try await client.execute(uri: path, method: method, headers: headers,
                                        body: json.map { ByteBuffer(string: $0) })
    }

    /// Posts `receipt` to the app's intake as a client app does, expecting `202 Accepted` with the submission's
    /// `Location`; answers the submission's id.
    static func post(_ receipt: String, of bundleID: String, key: String, to client: any TestClientProtocol)
        async throws -> UUID
    {
        let answer = try await send(client, .post, "/v1/apps/\(bundleID)/purchases", key: key,
                                    json: #"{"accountToken":"\#(TestPurchases.account)","receipt":"\#(receipt)"}"#)
        #expect(answer.status == .accepted, "\(String(buffer: answer.body))")
        let location = try #require(answer.headers[.location])
        return try #require(UUID(uuidString: String(location.split(separator: "/").last ?? "")))
    }

    static func issue(_ store: StandInAppStore, _ bundleID: String, environment: String = "Production",
                      products: [String] = ["coins"], transactions: [ReceiptOrder.Purchase]? = nil,
                      status: Int? = nil, calls: Int? = nil, retryable: Bool? = nil) throws -> IssuedReceipt {
        try store.issue(ReceiptOrder(bundleId: bundleID, environment: environment, products: products,
                                     transactions: transactions, status: status, statusCalls: calls,
                                     isRetryable: retryable))
    }

    @Test("decided at once: 0 with in_app and latest_receipt_info, 21007 → sandbox, invalid statuses, another app's receipt")
    func decidedPaths() async throws {
        let store = StandInAppStore(seal: .random())
        let bundle = "com.receipts.decided"
        try await Self.run("receipts_decided", store: store) { url, client in
            let key = try await TestPurchases.app(bundle, in: url)
            try await TestPurchases.setSharedSecret("right-secret", of: bundle, in: url)
            let subscription = ReceiptOrder.Purchase(productId: "pro.monthly", expiresInSeconds: 30 * 86_400)
            let receipts = [
                "production": try Self.issue(store, bundle, products: ["coins"],
                                             transactions: [subscription]),
                "sandbox": try Self.issue(store, bundle, environment: "Sandbox"),
                "21000": try Self.issue(store, bundle, status: 21000),
                "21003": try Self.issue(store, bundle, status: 21003),
                "21010": try Self.issue(store, bundle, status: 21010),
                "other app": try Self.issue(store, "com.receipts.someone.else"),
            ]
            // A shared secret the stand-in knows and the store settings do not have: 21004, for one app only.
            let secretBundle = "com.receipts.decided.secret"
            let secretKey = try await TestPurchases.app(secretBundle, in: url)
            try await TestPurchases.setSharedSecret("wrong-secret", of: secretBundle, in: url)
            store.setSharedSecret(AppStoreSharedSecret("the-real-one"), for: secretBundle)
            let wrongSecret = try Self.issue(store, secretBundle)

            let names = Array(receipts.keys)
            var ids: [UUID] = []
            for name in names { ids.append(try await Self.post(receipts[name]!.receipt, of: bundle, key: key.token, to: client)) }
            let secretID = try await Self.post(wrongSecret.receipt, of: secretBundle, key: secretKey.token, to: client)
            // The client reads its submission as it waits for the outcome the worker records.
            let productionID = ids[names.firstIndex(of: "production")!]
            let waited = try await Self.send(client, .get, "/v1/apps/\(bundle)/purchases/submissions/\(productionID)?wait=20",
                                             key: key.token)
            #expect(waited.status == .ok && String(buffer: waited.body).contains(#""status":"verified""#),
                    "\(String(buffer: waited.body))")
            let decided = try await TestPurchases.decided(ids, of: bundle, in: url)
            let submission = Dictionary(uniqueKeysWithValues: zip(names, ids).map { ($0, decided[$1]!) })

            let production = try #require(submission["production"])
            #expect(production.status == .verified && production.environment == .production)
            #expect(production.appleStatus == 0 && production.attempts == 1 && production.problems.isEmpty)
            // in_app's consumable and the subscription of in_app and latest_receipt_info, each once.
            let recorded = production.transactions.map(\.transaction)
            #expect(Set(recorded.map(\.productId)) == ["coins", "pro.monthly"])
            #expect(production.transactions.allSatisfy { $0.credited && !$0.alreadyRecorded })
            #expect(recorded.first { $0.productId == "pro.monthly" }?.expiresDate != nil)
            #expect(recorded.allSatisfy { $0.accountToken == TestPurchases.account })
            // coins is in the catalog as a consumable; the subscription is not in it.
            #expect(recorded.first { $0.productId == "coins" }?.catalogMismatch == false)
            #expect(recorded.first { $0.productId == "pro.monthly" }?.catalogMismatch == true)
            #expect(store.counts.receipt(receipts["production"]!.id).verified == 1)

            let sandbox = try #require(submission["sandbox"])
            #expect(sandbox.status == .verified && sandbox.environment == .sandbox && sandbox.attempts == 1)
            #expect(sandbox.transactions.map(\.transaction.environment) == [.sandbox])
            let hops = store.counts.receipt(receipts["sandbox"]!.id)
            #expect(hops.production == 1 && hops.sandbox == 1 && hops.verified == 1)

            for code in [21000, 21003, 21010] {
                let refused = try #require(submission["\(code)"])
                #expect(refused.status == .invalid && refused.appleStatus == code && refused.attempts == 1, "\(code)")
                #expect(refused.problems == ["The App Store answered \(code): \(VerifyReceiptStatus(code).meaning)"])
                #expect(refused.transactions.isEmpty && refused.finishedAt != nil)
            }
            let other = try #require(submission["other app"])
            #expect(other.status == .invalid && other.appleStatus == nil)
            #expect(other.problems == ["The receipt belongs to com.receipts.someone.else, not to \(bundle)."])
            let secret = try #require(try await TestPurchases.decided([secretID], of: secretBundle, in: url)[secretID])
            #expect(secret.status == .invalid && secret.appleStatus == 21004)

            // The ledger: one row per transaction; a history event for each; receipts kept only while undecided.
            #expect(try await TestPurchases.count(
                "SELECT count(*)::int FROM ledger_transactions WHERE app = '\(bundle)'", in: url) == 3)
            #expect(try await TestPurchases.count(
                "SELECT count(*)::int FROM history_events WHERE app = '\(bundle)' AND kind = 'transaction_recorded'",
                in: url) == 3)
            #expect(try await TestPurchases.count("SELECT count(*)::int FROM submission_receipts", in: url) == 0)
            #expect(try await TestPurchases.count("SELECT count(*)::int FROM history_events WHERE app = '\(bundle)' "
                + "AND kind = 'transaction_recorded' AND actor_role = 'client' AND changes::text LIKE '%submissionId%'",
                in: url) == 3)
            let chain = try await TestDatabase.withDatabase(url) { database in
                try await database.history.verify(chain: bundle).verified
            }
            #expect(chain)
        }
    }

    @Test("retried, then verified: 21005, 21009, 21100, 21199, is-retryable, an undocumented code, 21002 twice, 21007 then 21008")
    func retriedThenVerified() async throws {
        let store = StandInAppStore(seal: .random())
        let bundle = "com.receipts.retried"
        try await Self.run("receipts_retried", store: store) { url, client in
            let key = try await TestPurchases.app(bundle, in: url)
            let receipts: [(String, IssuedReceipt, Int)] = [
                ("21005", try Self.issue(store, bundle, status: 21005, calls: 2), 3),
                ("21009", try Self.issue(store, bundle, status: 21009, calls: 1), 2),
                ("21100", try Self.issue(store, bundle, status: 21100, calls: 1), 2),
                ("21199", try Self.issue(store, bundle, status: 21199, calls: 1), 2),
                ("21010 is-retryable", try Self.issue(store, bundle, status: 21010, calls: 1, retryable: true), 2),
                ("21050", try Self.issue(store, bundle, status: 21050, calls: 1), 2),
                ("21002", try Self.issue(store, bundle, status: 21002, calls: 2), 3),
                // Production says "sandbox receipt", the sandbox says "production receipt": the attempt is retried.
                ("21007 then 21008", try Self.issue(store, bundle, environment: "Sandbox", status: 21008, calls: 1), 2),
            ]
            let ids = try await TestPurchases.queue(receipts.map(\.1.receipt), of: bundle, key: key.keyID, in: url)
            let decided = try await TestPurchases.decided(ids, of: bundle, in: url)
            for ((name, receipt, attempts), id) in zip(receipts, ids) {
                let submission = try #require(decided[id])
                #expect(submission.status == .verified && submission.attempts == attempts, "\(name)")
                #expect(submission.transactions.count == 1, "\(name)")
                #expect(store.counts.receipt(receipt.id).verified == 1, "\(name): verified once at the stand-in")
            }
            #expect(try await TestPurchases.count(
                "SELECT count(*)::int FROM ledger_transactions WHERE app = '\(bundle)'", in: url) == receipts.count)
            // The worker's metrics.
            let metrics = try await client.execute(uri: "/metrics", method: .get)
            let text = String(buffer: metrics.body)
            #expect(text.contains(#"receipt_verification_outcomes_total{outcome="verified"} 8"#))
            #expect(text.contains(#"receipt_verification_outcomes_total{outcome="retrying"} 10"#))
            #expect(text.contains("appstore_verify_receipt_duration_seconds_count 18"))
            #expect(text.contains("receipt_submissions_leased 0"))
        }
    }

    @Test("21002 from every attempt: retried three times, then invalid; a receipt the App Store cannot read likewise")
    func malformedThenInvalid() async throws {
        let store = StandInAppStore(seal: .random())
        let bundle = "com.receipts.malformed"
        try await Self.run("receipts_malformed", store: store) { url, _ in
            let key = try await TestPurchases.app(bundle, in: url)
            let forced = try Self.issue(store, bundle, status: 21002)
            let ids = try await TestPurchases.queue([forced.receipt, "Tk9UIEEgUkVDRUlQVA=="], of: bundle,
                                                    key: key.keyID, in: url)
            let decided = try await TestPurchases.decided(ids, of: bundle, in: url)
            for id in ids {
                let submission = try #require(decided[id])
                #expect(submission.status == .invalid && submission.appleStatus == 21002 && submission.attempts == 4)
                #expect(submission.problems == [
                    "The App Store answered 21002: \(VerifyReceiptStatus.malformedReceiptData.meaning)"])
            }
            #expect(store.counts.receipt(forced.id).production == 4)
            #expect(try await TestPurchases.count(
                "SELECT count(*)::int FROM ledger_transactions WHERE app = '\(bundle)'", in: url) == 0)
        }
    }

    @Test("HTTP 503, dropped connections and timeouts are retried until the App Store answers, then verified once")
    func unreachableThenVerified() async throws {
        let store = StandInAppStore(seal: .random())
        let bundle = "com.receipts.unreachable"
        try await Self.run("receipts_unreachable", store: store, worker: { $0.appStore.timeout = .seconds(2) }) {
            url, _ in
            let key = try await TestPurchases.app(bundle, in: url)
            for (change, problem) in [
                (BehaviourChange(outage: .unavailable), "The App Store answered HTTP 503."),
                (BehaviourChange(outage: .drop), "The App Store could not be reached"),
                (BehaviourChange(latencyMs: 6_000...6_000), "The App Store did not answer in time."),
            ] {
                store.change(change)
                let receipt = try Self.issue(store, bundle, products: ["coins", "gems"])
                let id = try #require(try await TestPurchases.queue([receipt.receipt], of: bundle, key: key.keyID,
                                                                    in: url).first)
                // Undecided and kept so: retrying, with the reason, and due again.
                let retrying = try await Self.waitFor(id, of: bundle, in: url) {
                    $0.status == .retrying && $0.problems.first?.hasPrefix(problem) == true
                }
                #expect(retrying.nextAttemptAt != nil && retrying.transactions.isEmpty && retrying.appleStatus == nil)
                store.change(BehaviourChange(latencyMs: 0...0, outage: StandInBehaviour.Outage.none))
                let verified = try #require(try await TestPurchases.decided([id], of: bundle, in: url)[id])
                #expect(verified.status == .verified && verified.transactions.count == 2, "\(problem)")
                // A call that timed out was still answered by the stand-in later (as Apple would have): at most those.
                #expect(store.counts.receipt(receipt.id).verified >= 1)
            }
            #expect(try await TestPurchases.count(
                "SELECT count(*)::int FROM ledger_transactions WHERE app = '\(bundle)'", in: url) == 6)
        }
    }

    @Test("no decision within APPSTORE_RETRY_FOR: failed and visible, the receipt kept; an operator's retry verifies it")
    func failedAfterTheWindow() async throws {
        let store = StandInAppStore(seal: .random(), behaviour: .init(latencyMs: 0...0, outage: .unavailable,
                                                                     outageEndsAt: nil))
        let bundle = "com.receipts.failed"
        try await Self.run("receipts_failed", store: store, worker: {
            $0.retrySchedule = RetrySchedule(firstDelay: .milliseconds(100), maximumDelay: .milliseconds(300),
                                             retryFor: .seconds(3), jitter: 0.2)
        }) { url, client in
            let key = try await TestPurchases.app(bundle, in: url)
            let admin = try await TestKeys.make(.admin, in: url)
            let receipt = try Self.issue(store, bundle)
            let id = try await Self.post(receipt.receipt, of: bundle, key: key.token, to: client)
            let failed = try #require(try await TestPurchases.decided([id], of: bundle, in: url)[id])
            #expect(failed.status == .failed && failed.nextAttemptAt == nil)
            #expect(failed.finishedAt.map { $0.timeIntervalSince(failed.createdAt) } ?? 0 >= 3)
            #expect(failed.problems.first == "The App Store answered HTTP 503.")
            #expect(failed.problems.last?.contains("APPSTORE_RETRY_FOR") == true)
            #expect(try await TestPurchases.count(
                "SELECT count(*)::int FROM submission_receipts WHERE submission_id = '\(id)'", in: url) == 1)
            // Nothing more happens on its own.
            let attempts = failed.attempts
            try await Task.sleep(for: .milliseconds(600))
            #expect(try await TestPurchases.decided([id], of: bundle, in: url)[id]?.attempts == attempts)

            store.change(BehaviourChange(outage: StandInBehaviour.Outage.none))
            // An operator's retry through the API: due now, and this process's worker woken.
            let retried = try await Self.send(client, .post, "/v1/apps/\(bundle)/purchases/submissions/\(id)/retry",
                                              key: admin)
            #expect(retried.status == .ok, "\(String(buffer: retried.body))")
            let verified = try await Self.waitFor(id, of: bundle, in: url) { $0.status == .verified }
            #expect(verified.attempts == attempts + 1 && verified.transactions.count == 1)
        }
    }

    @Test("at most APPSTORE_CONCURRENCY verifications in flight, the rest left in the queue; each verified once")
    func concurrencyBound() async throws {
        // Each call long enough to be seen leased by the sampling below, even on a loaded machine.
        let store = StandInAppStore(seal: .random(), behaviour: .init(latencyMs: 400...600, outage: .none,
                                                                     outageEndsAt: nil))
        let bundle = "com.receipts.bounded"
        try await Self.run("receipts_bounded", store: store, worker: {
            $0.appStore.concurrency = 3
            $0.appStore.waitingCallers = 3
        }) { url, client in
            let key = try await TestPurchases.app(bundle, in: url)
            let receipts = try (0..<15).map { _ in try Self.issue(store, bundle) }
            let ids = try await TestPurchases.queue(receipts.map(\.receipt), of: bundle, key: key.keyID, in: url)
            // While it works: never more than 3 leased (sampled on one connection, both counts at once).
            let leasedAtMost = try await TestDatabase.withClient(url, maximumConnections: 1) { db in
                var leasedAtMost = 0
                while true {
                    let rows = try await db.query("""
                        SELECT count(*) FILTER (WHERE status <> 'verified')::int,
                               count(*) FILTER (WHERE status = 'verifying')::int
                        FROM purchase_submissions
                        """, logger: TestDatabase.logger).collect()
                    let (undecided, leased) = try #require(rows.first).decode((Int, Int).self)
                    leasedAtMost = max(leasedAtMost, leased)
                    if undecided == 0 { return leasedAtMost }
                    try await Task.sleep(for: .milliseconds(20))
                }
            }
            #expect(leasedAtMost <= 3 && leasedAtMost >= 1)
            let summary = store.counts.summary()
            #expect(summary.maxInFlight <= 3 && summary.calls == 15)
            #expect(receipts.allSatisfy { store.counts.receipt($0.id).verified == 1 })
            #expect(try await TestPurchases.decided(ids, of: bundle, in: url).values.allSatisfy { $0.status == .verified })
            let metrics = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
            #expect(metrics.contains("receipt_verifications_in_flight 0"))
        }
    }

    @Test("while the API answers more requests than the limit at once, queued receipts wait for them")
    func givesWayToRequests() async throws {
        let store = StandInAppStore(seal: .random())
        let bundle = "com.receipts.busy"
        var limits = TestArguments.testLimits
        limits.busyRequests = 2
        limits.busyWait = .seconds(120)
        try await Self.run("receipts_busy", store: store, limits: limits, mode: .live) { url, client in
            let port = try #require(client.port)
            let key = try await TestPurchases.app(bundle, in: url)
            let first = try Self.issue(store, bundle)
            let before = try await TestPurchases.queue([first.receipt], of: bundle, key: key.keyID, in: url)
            _ = try await Self.waitFor(before[0], of: bundle, in: url) { $0.status == .verified }

            // Three purchases being posted: the server answers them until their bodies arrive.
            let posted = try (0..<3).map { _ in try Self.issue(store, bundle).receipt }
            let hold = ContinuousClock.now + HeldRequests.hold
            let held = HeldRequests.start(3, port: port, path: "/v1/apps/\(bundle)/purchases", key: key.token) { index in
                #"{"accountToken":"\#(TestPurchases.account)","receipt":"\#(posted[index])"}"#
            }
            #expect(try await HeldRequests.waitUntilInFlight(4, client) >= 4, "the held posts are not counted in flight")
            let second = try Self.issue(store, bundle)
            let during = try await TestPurchases.queue([second.receipt], of: bundle, key: key.keyID, in: url)
            try await Task.sleep(for: .seconds(2))
            let asked = store.counts.receipt(second.id)
            #expect(asked.production + asked.sandbox == 0, "asked the App Store while the API was busy")
            #expect(ContinuousClock.now < hold, "the posts ended before the check: it proved nothing")
            for task in held {
                let answer = try await task.value
                #expect(answer.hasPrefix("HTTP/1.1 202"), "\(answer)")
            }
            let ended = ContinuousClock.now
            _ = try await Self.waitFor(during[0], of: bundle, in: url, timeout: .seconds(100)) { $0.status == .verified }
            // Well within the longest wait (120 s): leases resumed because the API was quiet, not at the limit.
            #expect(ContinuousClock.now - ended < .seconds(60), "not verified soon after the API was quiet again")
        }
    }

    @Test("stopping: attempts in flight finish within the grace; those still asking after it are given back, due now")
    func gracefulShutdown() async throws {
        let store = StandInAppStore(seal: .random(), behaviour: .init(latencyMs: 5_000...5_000, outage: .none,
                                                                     outageEndsAt: nil))
        let bundle = "com.receipts.stopping"
        // The receipts are queued before the worker starts, so that its first lease takes all three and their
        // calls are in flight together however slowly the machine starts them (queued while it ran, one by
        // one, a loaded suite twice never had all three in flight at once).
        let url = try await TestDatabase.forSuite("receipts_stopping")
        let key = try await TestPurchases.app(bundle, in: url)
        let finished = try await TestPurchases.queue(try (0..<3).map { _ in try Self.issue(store, bundle).receipt },
                                                     of: bundle, key: key.keyID, in: url)
        // A grace longer than the App Store takes: the attempts in flight end and are recorded.
        try await Self.run("receipts_stopping", store: store, worker: {
            $0.appStore.timeout = .seconds(15)
            $0.shutdownGrace = .seconds(20)
        }) { _, _ in
            try await Self.waitUntilInFlight(3, store)
        }
        let decided = try await TestPurchases.decided(finished, of: bundle, in: url, timeout: .zero)
        #expect(decided.values.allSatisfy { $0.status == .verified })
        // A grace shorter than the App Store takes: given back, retrying and due now, for any worker.
        store.change(BehaviourChange(latencyMs: 10_000...10_000))
        let released = try await TestPurchases.queue(try (0..<3).map { _ in try Self.issue(store, bundle).receipt },
                                                     of: bundle, key: key.keyID, in: url)
        try await Self.run("receipts_stopping", store: store, worker: {
            $0.shutdownGrace = .milliseconds(200)
        }) { _, _ in
            try await Self.waitUntilInFlight(3, store)
        }
        try await TestDatabase.withDatabase(url) { database in
            for id in released {
                let submission = try #require(try await database.submissions.find(bundle, id: id))
                #expect(submission.status == .retrying && submission.attempts == 1, "\(submission.status)")
                #expect(submission.leaseExpiresAt == nil && (submission.nextAttemptAt ?? .distantFuture) <= Date())
            }
        }
        // The next process verifies them.
        store.change(BehaviourChange(latencyMs: 0...0))
        try await Self.run("receipts_stopping", store: store) { url, _ in
            let decided = try await TestPurchases.decided(released, of: bundle, in: url)
            #expect(decided.values.allSatisfy { $0.status == .verified && $0.attempts == 2 })
        }
    }

    /// Reads the submission until `condition` holds, at most `timeout`.
    static func waitFor(_ id: UUID, of bundleID: String, in url: DatabaseURL, timeout: Duration = .seconds(60),
                        _ condition: @Sendable (PurchaseSubmission) -> Bool) async throws -> PurchaseSubmission {
        let deadline = ContinuousClock.now + timeout
        return try await TestDatabase.withDatabase(url) { database in
            while true {
                let submission = try await database.submissions.find(bundleID, id: id)
                if let submission, condition(submission) { return submission }
                guard ContinuousClock.now < deadline else {
                    throw TestSetupError("submission \(id) never got there: \(String(describing: submission))")
                }
                try await Task.sleep(for: .milliseconds(50))
            }
        }
    }

    /// Waits until the stand-in has `count` calls in flight.
    static func waitUntilInFlight(_ count: Int, _ store: StandInAppStore) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while store.counts.inFlight < count {
            guard ContinuousClock.now < deadline else { throw TestSetupError("never \(count) calls in flight") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
