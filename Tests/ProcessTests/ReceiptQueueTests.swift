import AppStoreStandIn
import AsyncHTTPClient
import CatalogCore
import CatalogStore
import CatalogTestSupport
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import PurchaseCore
import Testing

/// The receipt verification queue across real server processes on one database, against the stand-in App Store
/// as a real HTTP server (in this process, on a free port), receipts posted to the servers' API with a client key:
/// the processes share the queue and verify each submission once; a process killed mid-verification loses nothing (its leases expire and another takes them);
/// an outage of the App Store loses nothing; one receipt sent a thousand times at once is one submission, one
/// verification and one ledger row. One test at a time: each loads the machine with two servers and the stand-in (in
/// this process), and the counts at the stand-in must not see a call time out because another test is busy.
/// Leases and timeouts are short (`APPSTORE_LEASE_SECONDS`,
/// `APPSTORE_TIMEOUT_SECONDS`) so that none of this waits minutes.
@Suite("Receipt queue across processes", .serialized)
struct ReceiptQueueTests {
    /// The stand-in's addresses and the worker's settings, for a server's environment.
    /// One account posts every receipt here: its rate limit (its own tests are in PurchaseAPITests) is lifted.
    static func environment(_ base: URL, timeout: Int = 5, lease: Int = 15, concurrency: Int = 64) -> [String: String] {
        [
            "APPSTORE_VERIFY_RECEIPT_PRODUCTION_URL": base.appendingPathComponent("verifyReceipt").absoluteString,
            "APPSTORE_VERIFY_RECEIPT_SANDBOX_URL": base.appendingPathComponent("sandbox/verifyReceipt").absoluteString,
            "APPSTORE_TIMEOUT_SECONDS": "\(timeout)",
            "APPSTORE_LEASE_SECONDS": "\(lease)",
            "APPSTORE_CONCURRENCY": "\(concurrency)",
            "RATE_LIMIT_ACCOUNT_PER_SECOND": "1000000",
            "RATE_LIMIT_ACCOUNT_BURST": "1000000",
        ]
    }

    /// Posts `receipt` to `server`'s intake as a client app does; answers its submission's id (202, or 200 once
    /// the same receipt is decided).
    static func post(_ receipt: String, to server: ServerProcess, bundleID: String, clientKey: String) async throws
        -> UUID
    {
        let answer = try await ServiceCaller(server.baseURL).call(
            .POST, "/v1/apps/\(bundleID)/purchases", key: clientKey,
            json: #"{"accountToken":"\#(TestPurchases.account)","receipt":"\#(receipt)"}"#, timeout: .seconds(60))
        return try submissionID(answer)
    }

    /// The submission id of an intake's answer; throws on any other answer.
    static func submissionID(_ answer: Answer) throws -> UUID {
        guard answer.status == 202 || answer.status == 200,
              let object = try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any],
              let text = object["id"] as? String, let id = UUID(uuidString: text)
        else { throw UnexpectedAnswer(description: "intake answered \(answer.status): \(answer.body)") }
        return id
    }

    /// Posts every receipt, `width` at a time, to the servers in turn; answers the ids in order.
    static func post(_ receipts: [String], to servers: [ServerProcess], bundleID: String, clientKey: String,
                     width: Int = 32) async throws -> [UUID] {
        var ids = [UUID?](repeating: nil, count: receipts.count)
        for start in stride(from: 0, to: receipts.count, by: width) {
            let range = start..<min(start + width, receipts.count)
            try await withThrowingTaskGroup(of: (Int, UUID).self) { group in
                for index in range {
                    group.addTask {
                        (index, try await post(receipts[index], to: servers[index % servers.count], bundleID: bundleID,
                                               clientKey: clientKey))
                    }
                }
                for try await (index, id) in group { ids[index] = id }
            }
        }
        return ids.compactMap { $0 }
    }

    /// Runs `body` with a stand-in App Store behaving as `behaviour` on a free port.
    static func withStandIn<Result: Sendable>(
        _ behaviour: StandInBehaviour = .prompt, _ body: (StandInAppStore, URL) async throws -> Result
    ) async throws -> Result {
        let store = StandInAppStore(seal: .random(), behaviour: behaviour)
        var quiet = Logger(label: "appstore-standin")
        quiet.logLevel = .critical
        return try await StandInServer.withRunning(store, logger: quiet) { base in try await body(store, base) }
    }

    /// The number after `name` in a server's metrics (0 when absent).
    static func metric(_ name: String, of server: ServerProcess) async throws -> Int {
        let text = try await ServiceCaller(server.baseURL).call(.GET, "/metrics").body
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name + " ") }) else { return 0 }
        return Int(Double(line.split(separator: " ").last ?? "") ?? 0)
    }

    static let verified = #"receipt_verification_outcomes_total{outcome="verified"}"#

    /// Every receipt once in the ledger: one row per transaction, brought by one source, one history event each.
    static func expectRecordedOnce(_ bundleID: String, receipts: Int, in url: DatabaseURL) async throws {
        #expect(try await TestPurchases.count(
            "SELECT count(*)::int FROM ledger_transactions WHERE app = '\(bundleID)'", in: url) == receipts)
        #expect(try await TestPurchases.count(
            "SELECT count(*)::int FROM ledger_sources WHERE app = '\(bundleID)'", in: url) == receipts)
        #expect(try await TestPurchases.count("""
            SELECT count(*)::int FROM history_events WHERE app = '\(bundleID)' AND kind = 'transaction_recorded'
            """, in: url) == receipts)
        let chain = try await TestDatabase.withDatabase(url) { database in
            try await database.history.verify(chain: bundleID).verified
        }
        #expect(chain)
    }

    @Test("two server processes share the queue: every submission verified once, by one of them; no secret in their logs")
    func twoProcesses() async throws {
        let url = try await TestDatabase.forSuite("receipt_queue_two")
        let service = try await TestDatabase.serviceURL(for: url)
        let bundle = "com.queue.two"
        let key = try await TestPurchases.app(bundle, in: url)
        let admin = try await TestKeys.make(.admin, in: url)
        let secret = "shared-secret-\(UUID().uuidString.prefix(8))"
        try await Self.withStandIn(.init(latencyMs: 20...120, outage: .none, outageEndsAt: nil)) { store, base in
            store.setSharedSecret(AppStoreSharedSecret(secret), for: bundle)
            let environment = Self.environment(base, concurrency: 16)
            let first = try await ServerProcess(databaseURL: service, migrationURL: url, environment: environment,
                                                logLevel: "trace")
            let second = try await ServerProcess(databaseURL: service, migrationURL: url, environment: environment,
                                                 logLevel: "trace")
            // The secret as an operator sets it, through one server; the other reads it from the database.
            let put = try await ServiceCaller(first.baseURL).call(
                .PUT, "/v1/apps/\(bundle)/store-settings", key: admin, json: #"{"sharedSecret":"\#(secret)"}"#)
            #expect(put.status == 200, "\(put.body)")
            let receipts = try (0..<300).map { index in
                try store.issue(ReceiptOrder(bundleId: bundle, environment: index % 3 == 0 ? "Sandbox" : "Production",
                                             products: ["coins"]))
            }
            let started = ContinuousClock.now
            let ids = try await Self.post(receipts.map(\.receipt), to: [first, second], bundleID: bundle,
                                          clientKey: key.token)
            let decided = try await TestPurchases.decided(ids, of: bundle, in: url, timeout: .seconds(90))
            let took = ContinuousClock.now - started
            #expect(decided.values.allSatisfy { $0.status == .verified && $0.attempts == 1 })
            for receipt in receipts {
                let counts = store.counts.receipt(receipt.id)
                #expect(counts.verified == 1 && counts.production == 1, "\(receipt.id): \(counts)")
            }
            try await Self.expectRecordedOnce(bundle, receipts: receipts.count, in: url)
            let byFirst = try await Self.metric(Self.verified, of: first)
            let bySecond = try await Self.metric(Self.verified, of: second)
            #expect(byFirst + bySecond == receipts.count && byFirst > 0 && bySecond > 0,
                    "first \(byFirst), second \(bySecond)")
            // At trace level, neither the receipts nor the shared secret were ever logged.
            for server in [first, second] {
                let log = server.log
                #expect(log.contains("receipt verification started"))
                #expect(!log.contains(secret), "the shared secret is in a server's log")
                #expect(!receipts.contains { log.contains($0.receipt.prefix(60)) }, "a receipt is in a server's log")
                server.send(SIGTERM)
                #expect(try await server.waitForExit() == 0)
            }
            print("receipt queue, two processes: \(receipts.count) receipts verified in \(took), "
                  + "\(byFirst) by one process and \(bySecond) by the other")
        }
    }

    @Test("kill -9 mid-verification: the lease expires, another process verifies each receipt, nothing credited twice")
    func killedMidVerification() async throws {
        let url = try await TestDatabase.forSuite("receipt_queue_killed")
        let service = try await TestDatabase.serviceURL(for: url)
        let bundle = "com.queue.killed"
        let key = try await TestPurchases.app(bundle, in: url)
        try await Self.withStandIn(.init(latencyMs: 2_500...2_500, outage: .none, outageEndsAt: nil)) { store, base in
            // The lease: longer than two calls' timeout, as the service requires, and short enough to wait for.
            let environment = Self.environment(base, timeout: 4, lease: 9, concurrency: 64)
            let doomed = try await ServerProcess(databaseURL: service, migrationURL: url, environment: environment)
            let receipts = try (0..<20).map { _ in
                try store.issue(ReceiptOrder(bundleId: bundle, environment: "Production", products: ["coins"]))
            }
            let ids = try await Self.post(receipts.map(\.receipt), to: [doomed], bundleID: bundle,
                                          clientKey: key.token)
            // Every receipt is being asked about by the doomed process when it dies.
            let deadline = ContinuousClock.now + .seconds(20)
            while store.counts.inFlight < receipts.count && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(store.counts.inFlight == receipts.count)
            doomed.send(SIGKILL)
            let killed = ContinuousClock.now
            // The survivor's calls are answered at once, so that a loaded machine cannot turn them into timeouts.
            store.change(BehaviourChange(latencyMs: 0...0))
            #expect(try await doomed.waitForExit() == SIGKILL)
            #expect(try await TestPurchases.count(
                "SELECT count(*)::int FROM purchase_submissions WHERE status = 'verifying'", in: url) == receipts.count)

            let survivor = try await ServerProcess(databaseURL: service, migrationURL: url, environment: environment)
            let decided = try await TestPurchases.decided(ids, of: bundle, in: url, timeout: .seconds(60))
            let took = ContinuousClock.now - killed
            // The second attempt of each, by the survivor, after the first's lease expired.
            #expect(decided.values.allSatisfy { $0.status == .verified && $0.attempts == 2 },
                    "\(decided.values.map { "\($0.attempts) \($0.problems)" })")
            #expect(took >= .seconds(6), "verified \(took) after the kill: before the lease could expire")
            for receipt in receipts {
                // The killed process's call was answered too (the stand-in, like Apple, cannot tell it was
                // abandoned); the survivor's is the one recorded.
                #expect(store.counts.receipt(receipt.id).production == 2)
            }
            #expect(try await Self.metric(Self.verified, of: survivor) == receipts.count)
            try await Self.expectRecordedOnce(bundle, receipts: receipts.count, in: url)
            survivor.send(SIGTERM)
            #expect(try await survivor.waitForExit() == 0)
            print("receipt queue, kill -9: \(receipts.count) receipts in flight at the kill, all verified once "
                  + "\(took) after it, by the survivor")
        }
    }

    @Test("a 60-second outage of the App Store under load: nothing lost, all verified after it, none credited twice")
    func outage() async throws {
        let url = try await TestDatabase.forSuite("receipt_queue_outage")
        let service = try await TestDatabase.serviceURL(for: url)
        let bundle = "com.queue.outage"
        let key = try await TestPurchases.app(bundle, in: url)
        try await Self.withStandIn(.init(latencyMs: 50...150, outage: .none, outageEndsAt: nil)) { store, base in
            let environment = Self.environment(base, timeout: 3, lease: 10, concurrency: 64)
            let servers = [
                try await ServerProcess(databaseURL: service, migrationURL: url, environment: environment),
                try await ServerProcess(databaseURL: service, migrationURL: url, environment: environment),
            ]
            // Receipts arrive throughout: some verified before the outage, most during it.
            let receipts = Locked<[IssuedReceipt]>([])
            let ids = Locked<[UUID]>([])
            func submit(_ count: Int) async throws {
                let batch = try (0..<count).map { _ in
                    try store.issue(ReceiptOrder(bundleId: bundle, environment: "Production", products: ["coins"]))
                }
                let queued = try await Self.post(batch.map(\.receipt), to: servers, bundleID: bundle,
                                                 clientKey: key.token)
                receipts.withLock { $0 += batch }
                ids.withLock { $0 += queued }
            }
            try await submit(50)
            _ = try await TestPurchases.decided(ids.value, of: bundle, in: url)
            let clock = ContinuousClock()
            store.change(BehaviourChange(outage: .unavailable, outageSeconds: 60))
            let outageStarted = clock.now
            // Under load: 10 receipts a second for 50 seconds of the outage.
            while clock.now - outageStarted < .seconds(50) {
                try await submit(10)
                try await Task.sleep(for: .seconds(1))
            }
            let pending = try await TestPurchases.count(
                "SELECT count(*)::int FROM purchase_submissions WHERE status IN ('queued', 'verifying', 'retrying')",
                in: url)
            #expect(pending == ids.value.count - 50, "during the outage nothing is decided")
            let all = ids.value
            let decided = try await TestPurchases.decided(all, of: bundle, in: url, timeout: .seconds(150))
            let took = clock.now - outageStarted
            #expect(decided.values.allSatisfy { $0.status == .verified })
            for receipt in receipts.value {
                #expect(store.counts.receipt(receipt.id).verified == 1)
            }
            try await Self.expectRecordedOnce(bundle, receipts: all.count, in: url)
            let retried = decided.values.filter { $0.attempts > 1 }.count
            for server in servers {
                server.send(SIGTERM)
                #expect(try await server.waitForExit() == 0)
            }
            print("receipt queue, 60 s outage: \(all.count) receipts (\(all.count - 50) during the outage, "
                  + "\(retried) retried), all verified \(took) after the outage began, each once")
        }
    }

    @Test("1,000 concurrent submissions of one receipt: one submission, one verification, one ledger row")
    func thousandSubmissionsOfOneReceipt() async throws {
        let url = try await TestDatabase.forSuite("receipt_queue_thousand")
        let service = try await TestDatabase.serviceURL(for: url)
        let bundle = "com.queue.thousand"
        let key = try await TestPurchases.app(bundle, in: url)
        try await Self.withStandIn(.init(latencyMs: 300...300, outage: .none, outageEndsAt: nil)) { store, base in
            // A timeout far beyond the stand-in's 300 ms: a machine loaded by the 1,000 requests cannot make the one
            // verification time out and be asked again.
            let environment = Self.environment(base, timeout: 30, lease: 75)
            let servers = [
                try await ServerProcess(databaseURL: service, migrationURL: url, environment: environment),
                try await ServerProcess(databaseURL: service, migrationURL: url, environment: environment),
            ]
            let receipt = try store.issue(ReceiptOrder(bundleId: bundle, environment: "Production", products: ["coins"]))
            // 500 at once to each server, each request on a connection of its own.
            let answers = try await ConcurrentPosts.send(1_000, to: servers, path: "/v1/apps/\(bundle)/purchases",
                                                         key: key.token) { index in
                // The same receipt, as a client's base64 encoder might wrap it.
                let text = index % 2 == 0 ? receipt.receipt
                    : receipt.receipt.enumerated().map { $0.offset % 76 == 75 ? "\($0.element)\\n" : "\($0.element)" }.joined()
                return #"{"accountToken":"\#(TestPurchases.account)","receipt":"\#(text)"}"#
            }
            let ids = try answers.map(Self.submissionID)
            #expect(ids.count == 1_000 && Set(ids).count == 1)
            let decided = try await TestPurchases.decided([ids[0]], of: bundle, in: url)
            #expect(decided[ids[0]]?.status == .verified && decided[ids[0]]?.attempts == 1,
                    "\(String(describing: decided[ids[0]]))")
            #expect(try await TestPurchases.count(
                "SELECT count(*)::int FROM purchase_submissions WHERE app = '\(bundle)'", in: url) == 1)
            let counts = store.counts.receipt(receipt.id)
            #expect(counts.production == 1 && counts.verified == 1)
            try await Self.expectRecordedOnce(bundle, receipts: 1, in: url)
            for server in servers {
                server.send(SIGTERM)
                #expect(try await server.waitForExit() == 0)
            }
        }
    }
}
