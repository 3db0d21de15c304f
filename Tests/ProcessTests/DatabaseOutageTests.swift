import CatalogCore
import CatalogTestSupport
import Foundation
import NIOHTTP1
import Synchronization
import Testing

/// PostgreSQL going away under load and coming back: while it is down every request that needs it is
/// answered at once with 503 problem details and `Retry-After` (never a hang, never a 500), readiness says
/// not ready, and once it is back the same server process serves again by itself.
@Suite("PostgreSQL outage")
struct DatabaseOutageTests {
    enum Phase: Int { case up, stopping, down, restarting, recovered }

    /// One answer (or none) under load, with the phases it was asked and answered in.
    struct Outcome: Sendable {
        let asked: Int
        let answered: Int
        let answer: Answer?
        /// Why there was no answer.
        var failure: String?
    }

    @Test("stopped under load: 503 with Retry-After, not ready, never a hang or a 500; restarted: recovers by itself")
    func stopAndRestart() async throws {
        let cluster = try await PrivateCluster.start("outage")
        do {
            try await stopAndRestart(cluster)
        } catch {
            await cluster.destroy()
            throw error
        }
        await cluster.destroy()
    }

    private func stopAndRestart(_ cluster: PrivateCluster) async throws {
        let (owner, service) = try await cluster.database("iap_catalog")
        let admin = try await TestKeys.make(.admin, in: owner)
        let developer = try await TestKeys.make(.developer, in: owner)
        let wait = 2
        let server = try await ServerProcess(databaseURL: service, migrationURL: owner,
                                             environment: ["DATABASE_WAIT_SECONDS": "\(wait)"])
        let caller = ServiceCaller(server.baseURL)
        let app = "com.outage.app"
        let clients = 8
        try await caller.createApp(app, key: admin)
        for client in 0..<clients {
            try await caller.createProduct(app, "p\(client)", key: developer)
            try expectStatus(200, try await caller.act("approve", app, "p\(client)", key: developer))
        }

        let phase = Locked(Phase.up.rawValue)
        let outcomes = Locked<[Outcome]>([])
        let stop = Locked(false)
        let clock = ContinuousClock()
        var downFor: Duration = .zero
        var readyAfter: Duration = .zero
        var servingAfter: Duration = .zero
        try await withThrowingTaskGroup(of: Void.self) { group in
            // Load: each client reads its product and moves it back and forth, over and over.
            for client in 0..<clients {
                group.addTask {
                    var step = 0
                    while !stop.value && !Task.isCancelled {
                        let asked = phase.value
                        var answer: Answer?
                        var failure: String?
                        do {
                            switch step % 3 {
                            case 0: answer = try await caller.call(.GET, "/v1/apps/\(app)/products/p\(client)", key: developer)
                            case 1: answer = try await caller.act("submit", app, "p\(client)", key: developer)
                            default: answer = try await caller.act("withdraw", app, "p\(client)", key: developer)
                            }
                        } catch {
                            failure = "\(step % 3) in phase \(asked): \(error)"
                        }
                        let answered = phase.value
                        outcomes.withLock {
                            $0.append(Outcome(asked: asked, answered: answered, answer: answer, failure: failure))
                        }
                        step += 1
                        // While PostgreSQL is down answers come at once; pace the clients a little.
                        if answer?.status == 503 { try await Task.sleep(for: .milliseconds(50)) }
                    }
                }
            }
            try await Task.sleep(for: .seconds(2))
            phase.withLock { $0 = Phase.stopping.rawValue }
            try await cluster.stop()
            phase.withLock { $0 = Phase.down.rawValue }
            let downAt = clock.now
            try await Task.sleep(for: .seconds(1))
            // While down: not ready, still alive, the public list still served from memory.
            let ready = try? await caller.call(.GET, "/v1/health/ready")
            #expect(ready?.isUnavailable == true,
                    "readiness while down: \(ready.map { "\($0.status) \($0.body)" } ?? "no answer within 15 s")")
            #expect(try await caller.call(.GET, "/v1/health/live").status == 200)
            #expect(try await caller.call(.GET, "/v1/apps/\(app)/product-identifiers").status == 200)
            try await Task.sleep(for: .seconds(4))

            phase.withLock { $0 = Phase.restarting.rawValue }
            try await cluster.start()
            let upAt = clock.now
            downFor = upAt - downAt
            // The same process recovers by itself: readiness, then an authenticated read that needs the pool.
            while try await caller.call(.GET, "/v1/health/ready").status != 200 {
                #expect(clock.now - upAt < .seconds(30), "not ready 30 s after PostgreSQL came back")
                if clock.now - upAt >= .seconds(30) { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            readyAfter = clock.now - upAt
            while try await caller.call(.GET, "/v1/apps/\(app)", key: developer).status != 200 {
                if clock.now - upAt >= .seconds(30) { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            servingAfter = clock.now - upAt
            phase.withLock { $0 = Phase.recovered.rawValue }
            try await Task.sleep(for: .seconds(2))
            stop.withLock { $0 = true }
            try await group.waitForAll()
        }

        let all = outcomes.value
        /// The answers to requests asked and answered within `phase`.
        func answers(_ phase: Phase) -> [Answer] {
            all.filter { $0.asked == phase.rawValue && $0.answered == phase.rawValue }.compactMap(\.answer)
        }
        let unanswered = all.filter { $0.answer == nil }.count
        // Never a hang (every request answered within the client's timeout), never a 500.
        #expect(unanswered == 0, "\(all.compactMap(\.failure))")
        #expect(!all.contains { $0.answer.map { $0.status >= 500 && !$0.isUnavailable } ?? false },
                "\(Set(all.compactMap { $0.answer.map { "\($0.status) \($0.body)" } }.filter { !$0.hasPrefix("2") }))")
        // Before: served. Down: every request refused as unavailable, and soon.
        let up = answers(.up)
        #expect(!up.isEmpty && up.allSatisfy { $0.status == 200 || $0.status == 409 }, "\(up.map(\.status))")
        let down = answers(.down)
        #expect(!down.isEmpty && down.allSatisfy { $0.isUnavailable })
        let slowest = down.map(\.duration).max() ?? .zero
        #expect(slowest <= .seconds(wait + 2), "a request took \(slowest) while PostgreSQL was down")
        // Recovered: served again, by the same process.
        let recovered = answers(.recovered)
        #expect(!recovered.isEmpty && recovered.allSatisfy { $0.status == 200 || $0.status == 409 },
                "\(recovered.map(\.status))")
        #expect(server.isRunning)
        #expect(readyAfter < .seconds(10) && servingAfter < .seconds(10))
        let format: (Duration) -> String = { $0.formatted(.units(allowed: [.seconds, .milliseconds], width: .narrow)) }
        print("""
            outage: PostgreSQL down \(format(downFor)); \(up.count) requests served before; while down \(down.count) \
            answered 503 with Retry-After (slowest \(format(slowest))), 0 hung, 0 × 500; after restart ready in \
            \(format(readyAfter)), serving in \(format(servingAfter)); \(recovered.count) served after
            """)
        server.send(SIGTERM)
        let status = try await server.waitForExit()
        #expect(status == 0, "exit \(status); the server's log ends:\n\(server.log.suffix(3_000))")
    }
}
