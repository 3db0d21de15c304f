import AppStoreClient
import AppStoreStandIn
import Foundation
import Hummingbird
import Logging
import NIOCore
import PurchaseCore
import Testing

/// The client against the stand-in as a real HTTP server: every path of the status table, the hops between
/// endpoints, timeouts, outages, the bound on calls in flight, and logs without secrets.
@Suite struct VerifyReceiptClientTests {
    let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    @Test func aProductionReceiptIsVerifiedAtProductionOnce() async throws {
        try await StandInFixture.run { standIn, client in
            let issued = try standIn.receipt(bundle(), products: ["coins.100", "remove.ads"])
            let outcome = try await client.verify(ReceiptData(base64: issued.receipt), bundleId: bundle(),
                                                  sharedSecret: nil, logger: quiet)
            guard case .verified(let receipt) = outcome else {
                Issue.record("not verified: \(outcome)")
                return
            }
            #expect(receipt.environment == .production)
            #expect(receipt.bundleId == bundle())
            #expect(receipt.transactions.map(\.transactionId) == issued.transactions.map(\.transactionId))
            #expect(receipt.transactions.map(\.productId) == ["coins.100", "remove.ads"])
            let counts = standIn.store.counts.receipt(issued.id)
            #expect(counts.production == 1 && counts.sandbox == 0 && counts.verified == 1)
        }
    }

    @Test func aSandboxReceiptFallsBackToTheSandbox() async throws {
        try await StandInFixture.run { standIn, client in
            let issued = try standIn.receipt(bundle(), environment: "Sandbox")
            let outcome = try await client.verify(ReceiptData(base64: issued.receipt), bundleId: bundle(),
                                                  sharedSecret: nil, logger: quiet)
            guard case .verified(let receipt) = outcome else {
                Issue.record("not verified: \(outcome)")
                return
            }
            #expect(receipt.environment == .sandbox, "every record keeps its environment")
            let counts = standIn.store.counts.receipt(issued.id)
            #expect(counts.production == 1, "production first, answered 21007")
            #expect(counts.sandbox == 1 && counts.verified == 1)
            #expect(standIn.store.counts.summary().answers["21007"] == 1)
        }
    }

    @Test func aProductionReceiptAtTheSandboxReturnsToProduction() async throws {
        try await StandInFixture.run { standIn, client in
            let issued = try standIn.receipt(bundle())
            let outcome = try await client.verify(ReceiptData(base64: issued.receipt), bundleId: bundle(),
                                                  sharedSecret: nil, startingAt: .sandbox, logger: quiet)
            guard case .verified(let receipt) = outcome else {
                Issue.record("not verified: \(outcome)")
                return
            }
            #expect(receipt.environment == .production)
            let counts = standIn.store.counts.receipt(issued.id)
            #expect(counts.sandbox == 1 && counts.production == 1 && counts.verified == 1)
            #expect(standIn.store.counts.summary().answers["21008"] == 1)
        }
    }

    @Test func subscriptionsAreReadOnceFromBothArrays() async throws {
        try await StandInFixture.run { standIn, client in
            let issued = try standIn.store.issue(ReceiptOrder(
                bundleId: bundle(), environment: "Production", products: ["coins.100"],
                transactions: [.init(productId: "pro.monthly", expiresInSeconds: 2_592_000,
                                     appAccountToken: "4E3F4F5A-6B7C-4D8E-9F00-112233445566")]))
            let outcome = try await client.verify(ReceiptData(base64: issued.receipt), bundleId: bundle(),
                                                  sharedSecret: nil, logger: quiet)
            guard case .verified(let receipt) = outcome else {
                Issue.record("not verified: \(outcome)")
                return
            }
            #expect(receipt.transactions.count == 2, "in_app and latest_receipt_info carry the same two")
            let subscription = try #require(receipt.transactions.first { $0.productId == "pro.monthly" })
            #expect(subscription.expiresDate != nil)
            #expect(subscription.appAccountToken == "4E3F4F5A-6B7C-4D8E-9F00-112233445566")
            #expect(receipt.pendingRenewals.count == 1)
            #expect(receipt.latestReceipt != nil)
        }
    }

    @Test func theSharedSecretIsChecked() async throws {
        let app = bundle()
        try await StandInFixture.run(sharedSecrets: [app: "right-secret"]) { standIn, client in
            let issued = try standIn.receipt(app)
            let receipt = ReceiptData(base64: issued.receipt)
            #expect(try await client.verify(receipt, bundleId: app, sharedSecret: AppStoreSharedSecret("wrong-secret"),
                                            logger: quiet) == .invalid(.appleStatus(.wrongSharedSecret)))
            #expect(try await client.verify(receipt, bundleId: app, sharedSecret: nil, logger: quiet)
                == .invalid(.appleStatus(.wrongSharedSecret)))
            guard case .verified = try await client.verify(receipt, bundleId: app,
                                                           sharedSecret: AppStoreSharedSecret("right-secret"), logger: quiet)
            else {
                Issue.record("the right secret did not verify")
                return
            }
        }
    }

    @Test func anotherAppsReceiptIsInvalid() async throws {
        try await StandInFixture.run { standIn, client in
            let issued = try standIn.receipt(bundle() + ".other")
            #expect(try await client.verify(ReceiptData(base64: issued.receipt), bundleId: bundle(),
                                            sharedSecret: nil, logger: quiet)
                == .invalid(.otherApp(expected: bundle(), found: bundle() + ".other")))
        }
    }

    @Test func garbageIsMalformedAndAForgeryIsNotAuthentic() async throws {
        try await StandInFixture.run { standIn, client in
            #expect(try await client.verify(ReceiptData(base64: "bm90IGEgcmVjZWlwdA=="), bundleId: bundle(),
                                            sharedSecret: nil, logger: quiet) == .retry(.malformedReceiptData))
            let forged = try StandInAppStore(seal: .random())
                .issue(ReceiptOrder(bundleId: bundle(), environment: "Production", products: ["coins.100"]))
            #expect(try await client.verify(ReceiptData(base64: forged.receipt), bundleId: bundle(),
                                            sharedSecret: nil, logger: quiet) == .invalid(.appleStatus(.notAuthentic)))
        }
    }

    @Test(arguments: [
        (21005, nil, ReceiptOutcome.retry(.appleStatus(.serverUnavailable))),
        (21009, nil, .retry(.appleStatus(.internalDataAccessError))),
        (21100, true, .retry(.appleStatus(VerifyReceiptStatus(21100)))),
        (21199, nil, .retry(.appleStatus(VerifyReceiptStatus(21199)))),
        (21002, nil, .retry(.malformedReceiptData)),
        (21010, nil, .invalid(.appleStatus(.accountNotFound))),
        (21000, nil, .invalid(.appleStatus(.unreadableRequest))),
        (21003, true, .retry(.appleStatus(.notAuthentic))),
    ] as [(Int, Bool?, ReceiptOutcome)])
    func statusesOnDemand(status: Int, retryable: Bool?, expected: ReceiptOutcome) async throws {
        let app = bundle() + String(status)
        try await StandInFixture.run { standIn, client in
            for environment in ["Production", "Sandbox"] {
                let issued = try standIn.receipt(app, environment: environment, status: status, isRetryable: retryable)
                #expect(try await client.verify(ReceiptData(base64: issued.receipt), bundleId: app, sharedSecret: nil,
                                                logger: quiet) == expected, "\(environment)")
                #expect(standIn.store.counts.receipt(issued.id).verified == 0)
            }
        }
    }

    @Test func aStatusForTheFirstCallsOnlyThenVerified() async throws {
        try await StandInFixture.run { standIn, client in
            let issued = try standIn.receipt(bundle(), environment: "Sandbox", status: 21005, statusCalls: 2)
            let receipt = ReceiptData(base64: issued.receipt)
            for _ in 0..<2 {
                #expect(try await client.verify(receipt, bundleId: bundle(), sharedSecret: nil, logger: quiet)
                    == .retry(.appleStatus(.serverUnavailable)))
            }
            guard case .verified = try await client.verify(receipt, bundleId: bundle(), sharedSecret: nil,
                                                           logger: quiet)
            else {
                Issue.record("the third call did not verify")
                return
            }
            #expect(standIn.store.counts.receipt(issued.id).verified == 1)
        }
    }

    @Test func aSlowAppStoreIsATimeoutToRetry() async throws {
        let slow = StandInBehaviour(latencyMs: 3000...3000, outage: .none, outageEndsAt: nil)
        try await StandInFixture.run(behaviour: slow, client: { $0.timeout = .milliseconds(300) }) { standIn, client in
            let issued = try standIn.receipt(bundle())
            let started = ContinuousClock.now
            let outcome = try await client.verify(ReceiptData(base64: issued.receipt), bundleId: bundle(),
                                                  sharedSecret: nil, logger: quiet)
            let elapsed = ContinuousClock.now - started
            #expect(outcome == .retry(.timedOut))
            #expect(elapsed < .milliseconds(2500), "the client gave up at its timeout, not the stand-in's latency")
            #expect(standIn.store.counts.receipt(issued.id).verified == 0)
        }
    }

    @Test func anAnswerThatTricklesInIsATimeoutToo() async throws {
        // The head at once, then a byte every 100 ms: AsyncHTTPClient's own deadline ends with the head, and the
        // read timeout sees a byte well within it each time; only the whole answer's bound ends this call.
        try await TricklingServer.withRunning { base in
            var configuration = AppStoreClientConfiguration.standard
            configuration.productionURL = base.appendingPathComponent("verifyReceipt")
            configuration.timeout = .milliseconds(600)
            let client = VerifyReceiptClient(configuration: configuration)
            let started = ContinuousClock.now
            let outcome = try await client.verify(ReceiptData(base64: "AAAA"), bundleId: bundle(), sharedSecret: nil,
                                                  logger: quiet)
            let elapsed = ContinuousClock.now - started
            try await client.shutdown()
            #expect(outcome == .retry(.timedOut))
            #expect(elapsed < .seconds(3), "the client gave up at its timeout, not at the answer's end (\(elapsed))")
        }
    }

    @Test func aCallerCancelledDuringTheCallStopsAtOnce() async throws {
        let slow = StandInBehaviour(latencyMs: 3000...3000, outage: .none, outageEndsAt: nil)
        try await StandInFixture.run(behaviour: slow, client: { $0.timeout = .seconds(10) }) { standIn, client in
            let receipt = ReceiptData(base64: try standIn.receipt(bundle()).receipt)
            let app = bundle()
            let caller = Task { try await client.verify(receipt, bundleId: app, sharedSecret: nil, logger: quiet) }
            try await Task.sleep(for: .milliseconds(300))
            #expect(client.inFlight == 1)
            let cancelled = ContinuousClock.now
            caller.cancel()
            await #expect(throws: CancellationError.self) { try await caller.value }
            #expect(ContinuousClock.now - cancelled < .milliseconds(2000), "not at the stand-in's answer")
            #expect(client.inFlight == 0)
        }
    }

    @Test func cancelledCallsEndAtOnceAndLaterOnesAreRefused() async throws {
        let slow = StandInBehaviour(latencyMs: 3000...3000, outage: .none, outageEndsAt: nil)
        try await StandInFixture.run(behaviour: slow, client: { $0.timeout = .seconds(10) }) { standIn, client in
            let receipt = ReceiptData(base64: try standIn.receipt(bundle()).receipt)
            let app = bundle()
            let callers = (0..<3).map { _ in
                Task { try await client.verify(receipt, bundleId: app, sharedSecret: nil, logger: quiet) }
            }
            try await Task.sleep(for: .milliseconds(300))
            #expect(client.inFlight == 3)
            let cancelled = ContinuousClock.now
            client.cancelCalls()
            for caller in callers {
                await #expect(throws: CancellationError.self) { try await caller.value }
            }
            #expect(ContinuousClock.now - cancelled < .milliseconds(2000), "not at the stand-in's answer")
            #expect(client.inFlight == 0)
            await #expect(throws: CancellationError.self) {
                try await client.verify(receipt, bundleId: app, sharedSecret: nil, logger: quiet)
            }
            #expect(standIn.store.counts.summary().calls <= 3, "nothing sent after the cancellation")
        }
    }

    @Test func aLatencyWithinTheTimeoutIsWaitedFor() async throws {
        let slow = StandInBehaviour(latencyMs: 200...400, outage: .none, outageEndsAt: nil)
        try await StandInFixture.run(behaviour: slow, client: { $0.timeout = .seconds(3) }) { standIn, client in
            let issued = try standIn.receipt(bundle())
            guard case .verified = try await client.verify(ReceiptData(base64: issued.receipt), bundleId: bundle(),
                                                           sharedSecret: nil, logger: quiet)
            else {
                Issue.record("not verified")
                return
            }
        }
    }

    @Test func anOutageIsRetriedAndItsEndVerifies() async throws {
        try await StandInFixture.run { standIn, client in
            let issued = try standIn.receipt(bundle())
            let receipt = ReceiptData(base64: issued.receipt)
            standIn.store.change(BehaviourChange(outage: .unavailable))
            #expect(try await client.verify(receipt, bundleId: bundle(), sharedSecret: nil, logger: quiet)
                == .retry(.httpStatus(503)))
            standIn.store.change(BehaviourChange(outage: .drop))
            let dropped = try await client.verify(receipt, bundleId: bundle(), sharedSecret: nil, logger: quiet)
            guard case .retry(.connectionFailed) = dropped else {
                Issue.record("a dropped connection is \(dropped)")
                return
            }
            // Long enough that a loaded machine still makes the call within it.
            standIn.store.change(BehaviourChange(outage: .unavailable, outageSeconds: 2))
            #expect(try await client.verify(receipt, bundleId: bundle(), sharedSecret: nil, logger: quiet)
                == .retry(.httpStatus(503)))
            try await Task.sleep(for: .milliseconds(2_100))
            guard case .verified = try await client.verify(receipt, bundleId: bundle(), sharedSecret: nil,
                                                           logger: quiet)
            else {
                Issue.record("not verified once the outage ended")
                return
            }
            #expect(standIn.store.counts.receipt(issued.id).verified == 1)
        }
    }

    @Test func anAddressNobodyAnswersIsAConnectionFailure() async throws {
        // A port that was free a moment ago: nothing listens there.
        let closed = try await StandInFixture.run { standIn, _ in standIn.base }
        var configuration = AppStoreClientConfiguration.standard
        configuration.productionURL = closed.appendingPathComponent("verifyReceipt")
        // The pool's connect timeout is half of it: room for the refusal to be reported as such on a loaded machine.
        configuration.timeout = .seconds(6)
        let client = VerifyReceiptClient(configuration: configuration)
        let outcome = try await client.verify(ReceiptData(base64: "AAAA"), bundleId: bundle(), sharedSecret: nil,
                                              logger: quiet)
        try await client.shutdown()
        guard case .retry(.connectionFailed) = outcome else {
            Issue.record("a refused connection is \(outcome)")
            return
        }
    }

    @Test func anOversizedAnswerIsRefused() async throws {
        try await StandInFixture.run(client: { $0.answerLimit = 4096 }) { standIn, client in
            let issued = try standIn.receipt(bundle(), products: (0..<100).map { "product.\($0)" })
            #expect(try await client.verify(ReceiptData(base64: issued.receipt), bundleId: bundle(), sharedSecret: nil,
                                            logger: quiet) == .retry(.answerTooLarge(limit: 4096)))
        }
    }

    @Test func callsInFlightNeverExceedTheConcurrency() async throws {
        let slow = StandInBehaviour(latencyMs: 150...250, outage: .none, outageEndsAt: nil)
        try await StandInFixture.run(behaviour: slow, client: {
            $0.concurrency = 4
            $0.waitingCallers = 100
        }) { standIn, client in
            let app = bundle()
            let receipts = try (0..<24).map { index in
                try standIn.receipt(app, environment: index.isMultiple(of: 2) ? "Production" : "Sandbox")
            }
            // The client's own count, sampled while the calls run: the connection pool alone would also hold the
            // stand-in to 4 connections, but only by queueing callers without bound.
            let sampler = Task {
                var highest = 0
                while !Task.isCancelled {
                    highest = max(highest, client.inFlight)
                    try? await Task.sleep(for: .milliseconds(2))
                }
                return highest
            }
            let outcomes = try await withThrowingTaskGroup(of: ReceiptOutcome.self) { group in
                for issued in receipts {
                    group.addTask {
                        try await client.verify(ReceiptData(base64: issued.receipt), bundleId: app, sharedSecret: nil,
                                                logger: quiet)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            sampler.cancel()
            #expect(await sampler.value == 4, "the client held its places at 4 while 24 verifications ran")
            #expect(outcomes.allSatisfy { if case .verified = $0 { true } else { false } })
            let summary = standIn.store.counts.summary()
            #expect(summary.maxInFlight == 4, "the stand-in saw the bound reached, and never passed")
            #expect(summary.calls == 36, "24 receipts, 12 of them asked twice (21007)")
            #expect(client.inFlight == 0 && client.waiting == 0)
        }
    }

    @Test func callersBeyondTheWaitingBoundAreTurnedAwayAtOnce() async throws {
        let slow = StandInBehaviour(latencyMs: 500...500, outage: .none, outageEndsAt: nil)
        try await StandInFixture.run(behaviour: slow, client: {
            $0.concurrency = 2
            $0.waitingCallers = 1
        }) { standIn, client in
            let app = bundle()
            let issued = try standIn.receipt(app)
            let outcomes = try await withThrowingTaskGroup(of: ReceiptOutcome.self) { group in
                for _ in 0..<6 {
                    group.addTask {
                        try await client.verify(ReceiptData(base64: issued.receipt), bundleId: app, sharedSecret: nil,
                                                logger: quiet)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 == .retry(.clientSaturated) }.count == 3, "2 in flight, 1 waiting")
            #expect(outcomes.filter { if case .verified = $0 { true } else { false } }.count == 3)
            #expect(standIn.store.counts.summary().calls == 3, "nothing was sent for those turned away")
        }
    }

    @Test func aCancelledWaiterLeavesItsPlace() async throws {
        let slow = StandInBehaviour(latencyMs: 400...400, outage: .none, outageEndsAt: nil)
        try await StandInFixture.run(behaviour: slow, client: {
            $0.concurrency = 1
            $0.waitingCallers = 4
        }) { standIn, client in
            let issued = try standIn.receipt(bundle())
            let receipt = ReceiptData(base64: issued.receipt)
            let app = bundle()
            async let first = client.verify(receipt, bundleId: app, sharedSecret: nil, logger: quiet)
            try await Task.sleep(for: .milliseconds(100))
            let waiter = Task { try await client.verify(receipt, bundleId: app, sharedSecret: nil, logger: quiet) }
            try await Task.sleep(for: .milliseconds(100))
            #expect(client.waiting == 1)
            waiter.cancel()
            await #expect(throws: CancellationError.self) { try await waiter.value }
            #expect(client.waiting == 0)
            guard case .verified = try await first else {
                Issue.record("the first call did not verify")
                return
            }
            #expect(standIn.store.counts.summary().calls == 1, "the cancelled caller sent nothing")
        }
    }

    @Test func logsNeverHoldTheSharedSecretOrTheReceipt() async throws {
        let app = bundle()
        let secret = "shared-secret-7f3a9c"
        let logs = CapturedLogs()
        let logger = logs.logger()
        let slow = StandInBehaviour(latencyMs: 0...0, outage: .none, outageEndsAt: nil)
        let issued = try await StandInFixture.run(behaviour: slow, sharedSecrets: [app: secret],
                                                  client: { $0.timeout = .milliseconds(300) }) { standIn, client in
            let issued = try standIn.receipt(app, environment: "Sandbox")
            let receipt = ReceiptData(base64: issued.receipt)
            var outcomes: [ReceiptOutcome] = []
            outcomes.append(try await client.verify(receipt, bundleId: app, sharedSecret: AppStoreSharedSecret(secret),
                                                    logger: logger))
            outcomes.append(try await client.verify(receipt, bundleId: app, sharedSecret: AppStoreSharedSecret(secret + "x"),
                                                    logger: logger))
            standIn.store.change(BehaviourChange(latencyMs: 1000...1000))
            outcomes.append(try await client.verify(receipt, bundleId: app, sharedSecret: AppStoreSharedSecret(secret),
                                                    logger: logger))
            standIn.store.change(BehaviourChange(latencyMs: 0...0, outage: .drop))
            outcomes.append(try await client.verify(receipt, bundleId: app, sharedSecret: AppStoreSharedSecret(secret),
                                                    logger: logger))
            // Outcomes are what callers log and store: they must not hold the secret either.
            for text in outcomes.map({ "\($0)" }) + outcomes.map({ String(reflecting: $0) }) {
                #expect(!text.contains(secret))
            }
            return issued
        }
        #expect(logs.count >= 4, "the client logged its calls (the capture works)")
        #expect(logs.text.contains("appstore.status=21007"), "\(logs.text)")
        #expect(!logs.text.contains(secret), "\(logs.text)")
        #expect(!logs.text.contains("receipt-data"))
        #expect(!logs.text.contains(issued.receipt.prefix(24)), "no receipt")
    }
}

/// An HTTP server whose every answer is a 200 head at once, then a body of one byte every 100 ms for 10 s.
private enum TricklingServer {
    static func withRunning(_ body: (URL) async throws -> Void) async throws {
        let router = Router()
        router.post("verifyReceipt") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody { writer in
                for _ in 0..<100 {
                    try await writer.write(ByteBuffer(string: " "))
                    try await Task.sleep(for: .milliseconds(100))
                }
                try await writer.finish(nil)
            })
        }
        let (ports, portSink) = AsyncStream<Int>.makeStream()
        var quiet = Logger(label: "trickling")
        quiet.logLevel = .critical
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { channel in
                                  portSink.yield(channel.localAddress?.port ?? 0)
                                  portSink.finish()
                              }, logger: quiet)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                defer { portSink.finish() }
                try await app.run()
            }
            defer { group.cancelAll() }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next(), port != 0 else {
                Issue.record("the trickling server did not start")
                return
            }
            try await body(URL(string: "http://127.0.0.1:\(port)")!)
        }
    }
}
