import CatalogAPI
import CatalogCore
import CatalogTestSupport
import Foundation
import NIOHTTP1
import Testing

/// SIGTERM (a deployment, a scale-down): the server stops taking connections, finishes the requests it
/// has, ends its event streams, and exits 0.
@Suite("Drain on SIGTERM")
struct DrainTests {
    @Test("SIGTERM with slow requests in flight: they complete with 2xx, new connections are refused, exit 0")
    func drain() async throws {
        let url = try await TestDatabase.forSuite("drain")
        let service = try await TestDatabase.serviceURL(for: url)
        let developer = try await TestKeys.make(.developer, in: url)
        let admin = try await TestKeys.make(.admin, in: url)
        let server = try await ServerProcess(databaseURL: service, migrationURL: url)
        let caller = ServiceCaller(server.baseURL)
        let app = "com.drain.app"
        let products = (0..<6).map { "p\($0)" }
        try await caller.createApp(app, key: admin)
        for id in products {
            try await caller.createProduct(app, id, key: developer)
            try expectStatus(200, try await caller.act("approve", app, id, key: developer))
        }

        // Slow requests: submissions that wait behind a lock which lets reads through but holds writes.
        let lock = try await HeldLock.take("products", mode: "EXCLUSIVE", in: url)
        let inFlight = products.map { id in
            Task { try await caller.act("submit", app, id, key: developer, timeout: .seconds(60)) }
        }
        // Submissions are written together (LifecycleBatches): fewer sessions wait on the lock than requests,
        // and the others wait for their batch. All are in flight once the server counts them all.
        try await HeldLock.waitUntil(1, waitIn: url)
        let counted = ContinuousClock.now + .seconds(20)
        while try await !caller.call(.GET, "/metrics").body.contains("db_lifecycle_changes_pending \(products.count)") {
            #expect(ContinuousClock.now < counted, "the server did not count \(products.count) submissions in flight")
            guard ContinuousClock.now < counted else { break }
            try await Task.sleep(for: .milliseconds(20))
        }

        let clock = ContinuousClock()
        server.send(SIGTERM)
        let signalled = clock.now
        // The listening socket closes at once: a new connection is refused while the old ones drain.
        var refused = false
        while !refused && clock.now - signalled < .seconds(10) {
            refused = connectionRefused(port: server.port)
            if !refused { try await Task.sleep(for: .milliseconds(20)) }
        }
        let refusedAfter = clock.now - signalled
        #expect(refused, "new connections were still accepted \(refusedAfter) after SIGTERM")
        try await Task.sleep(for: .milliseconds(500))
        #expect(server.isRunning, "the server exited with requests in flight")

        try await lock.unlock()
        let answers = try await inFlight.asyncMap { try await $0.value }
        let status = try await server.waitForExit(timeout: .seconds(10))
        let exitedAfter = clock.now - signalled
        #expect(answers.allSatisfy { $0.status == 200 }, "\(answers.map { "\($0.status) \($0.body)" })")
        #expect(status == 0, "exit status \(String(describing: status)):\n\(server.log.suffix(2000))")

        // What they answered is what the database holds.
        let next = try await ServerProcess(databaseURL: service, migrationURL: url)
        let reader = ServiceCaller(next.baseURL)
        for id in products {
            #expect(try await reader.product(app, id, key: developer).state == .waitingForReview, "\(id)")
        }
        let format: (Duration) -> String = { $0.formatted(.units(allowed: [.seconds, .milliseconds], width: .narrow)) }
        print("""
            drain: SIGTERM with \(products.count) requests in flight: new connections refused after \
            \(format(refusedAfter)); all \(answers.filter { $0.status == 200 }.count) answered 200 once unblocked; \
            exit \(status.map(String.init) ?? "none") \(format(exitedAfter)) after the signal
            """)
        next.send(SIGTERM)
        #expect(try await next.waitForExit() == 0)
    }

    @Test("SIGTERM with an event stream open: the stream ends after what it sent, exit 0 at once; resumed after restart")
    func streamEnds() async throws {
        let url = try await TestDatabase.forSuite("drain_stream")
        let service = try await TestDatabase.serviceURL(for: url)
        let admin = try await TestKeys.make(.admin, in: url)
        let developer = try await TestKeys.make(.developer, in: url)
        let app = "com.drain.stream"
        let server = try await ServerProcess(databaseURL: service, migrationURL: url)
        try await ServiceCaller(server.baseURL).createApp(app, key: admin)
        var reader = try await EventStreamReader.open(port: server.port, "/v1/events?app=\(app)", key: admin)
        let sent = try await reader.events(1)
        #expect(sent.map(\.kind) == ["app_created"])

        // The stream waits for changes (its heartbeat is 15 s): nothing of it may hold the process.
        let (status, exitedAfter) = try await server.terminate(waitingAtMost: .seconds(10))
        #expect(status == 0, "exit status \(String(describing: status)) \(exitedAfter) after SIGTERM:\n\(server.log.suffix(2000))")
        #expect(exitedAfter < .seconds(5))
        // The stream ended: nothing after what it had sent, but perhaps a heartbeat.
        while let frame = try await reader.next(within: .seconds(5)) {
            #expect(frame.id == nil, "an event after the last: \(frame)")
        }

        // The client resumes from its last event on the next server, and misses nothing written meanwhile.
        let next = try await ServerProcess(databaseURL: service, migrationURL: url)
        try await ServiceCaller(next.baseURL).createProduct(app, "after", key: developer)
        var resumed = try await EventStreamReader.open(
            port: next.port, "/v1/events?app=\(app)", key: admin,
            headers: [("Last-Event-ID", String(try #require(sent.first?.id)))])
        let missed = try await resumed.events(1)
        #expect(missed.map(\.kind) == ["created"])
        #expect(missed.first?.data?.contains("\"after\"") == true)
        print("drain: SIGTERM with an event stream open: the stream ended and the server exited \(exitedAfter) after the signal")
        next.send(SIGTERM)
        #expect(try await next.waitForExit(timeout: .seconds(10)) == 0)
    }

    @Test("SIGTERM after PostgreSQL went away: the workers waiting for a connection stop with the rest, exit 0 at once")
    func stopWithoutDatabase() async throws {
        let cluster = try await PrivateCluster.start("drain_no_database")
        do {
            let (owner, service) = try await cluster.database("iap_catalog")
            let server = try await ServerProcess(databaseURL: service, migrationURL: owner)
            try await cluster.stop()
            // Long enough for every worker to be waiting for a connection the pool cannot make.
            try await Task.sleep(for: .seconds(3))
            let (status, exitedAfter) = try await server.terminate(waitingAtMost: .seconds(15))
            #expect(status == 0, "exit status \(String(describing: status)) \(exitedAfter) after SIGTERM:\n\(server.log.suffix(3000))")
            #expect(exitedAfter < .seconds(10), "still running \(exitedAfter) after SIGTERM")
            print("drain: SIGTERM with PostgreSQL gone: \(status == nil ? "still running" : "exited") \(exitedAfter) after the signal")
        } catch {
            await cluster.destroy()
            throw error
        }
        await cluster.destroy()
    }

    @Test("SIGTERM with a read waiting for a receipt's outcome (?wait=20): answered at once with what is known, exit 0")
    func waitingReadAnswers() async throws {
        let url = try await TestDatabase.forSuite("drain_wait")
        let service = try await TestDatabase.serviceURL(for: url)
        let bundle = "com.drain.wait"
        let key = try await TestPurchases.app(bundle, in: url)
        // An App Store that refuses every connection: the receipt stays undecided (each attempt ends within 1 s).
        let nowhere = "http://127.0.0.1:9/verifyReceipt"
        let server = try await ServerProcess(databaseURL: service, migrationURL: url, environment: [
            "APPSTORE_VERIFY_RECEIPT_PRODUCTION_URL": nowhere, "APPSTORE_VERIFY_RECEIPT_SANDBOX_URL": nowhere,
            "APPSTORE_TIMEOUT_SECONDS": "1",
        ])
        let id = try await ReceiptQueueTests.post("cmVjZWlwdA==", to: server, bundleID: bundle, clientKey: key.token)
        let caller = ServiceCaller(server.baseURL)
        let path = "/v1/apps/\(bundle)/purchases/submissions/\(id.uuidString.lowercased())?wait=20"
        let waiting = Task { try await caller.call(.GET, path, key: key.token, timeout: .seconds(60)) }
        try await Task.sleep(for: .seconds(2))

        let clock = ContinuousClock()
        server.send(SIGTERM)
        let signalled = clock.now
        let answer = try await waiting.value
        let answeredAfter = clock.now - signalled
        let status = try await server.waitForExit(timeout: .seconds(10))
        let exitedAfter = clock.now - signalled
        #expect(answer.status == 200, "\(answer.status) \(answer.body)")
        let told = try caller.decode(Components.Schemas.PurchaseSubmission.self, from: answer).status
        #expect([.queued, .verifying, .retrying].contains(told), "\(answer.body)")
        #expect(answeredAfter < .seconds(5), "the waiting read answered \(answeredAfter) after SIGTERM")
        #expect(status == 0, "exit status \(String(describing: status)):\n\(server.log.suffix(2000))")
        #expect(exitedAfter < .seconds(5))
        print("drain: SIGTERM with a read waiting 20 s for an outcome: answered \(told.rawValue) \(answeredAfter) after the "
              + "signal, exit \(exitedAfter) after it")
    }
}
