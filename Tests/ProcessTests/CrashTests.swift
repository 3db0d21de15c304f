import CatalogAPI
import CatalogCore
import CatalogTestSupport
import Foundation
import NIOHTTP1
import OpenAPIRuntime
import Testing

/// A server killed outright (SIGKILL: no drain, no clean-up) in the middle of a stream of changes loses
/// nothing it acknowledged and leaves nothing half-written: each change and its history event are one
/// statement, so the database holds both or neither.
@Suite("Crash of a server")
struct CrashTests {
    /// A change the server answered 2xx: the product's version it answered, and what the change was.
    struct Acknowledged: Sendable {
        let productID: String
        let version: Int
        let action: String?
        let referenceName: String?
    }

    @Test("SIGKILL mid-stream: every acknowledged change is in state and history, state replays from history, chains verify")
    func killMidStream() async throws {
        let url = try await TestDatabase.forSuite("crash")
        let service = try await TestDatabase.serviceURL(for: url)
        let admin = try await TestKeys.make(.admin, in: url)
        let developer = try await TestKeys.make(.developer, in: url)
        let reviewer = try await TestKeys.make(.reviewer, in: url)
        let app = "com.crash.app"
        let products = (0..<12).map { "p\($0)" }

        let first = try await ServerProcess(databaseURL: service, migrationURL: url)
        let caller = ServiceCaller(first.baseURL)
        try await caller.createApp(app, key: admin)
        for id in products { try await caller.createProduct(app, id, key: developer) }

        let acknowledged = Locked<[Acknowledged]>([])
        let sent = Locked(0)
        let unanswered = Locked(0)
        let statuses = Tally<Int>()
        let clock = ContinuousClock()
        let start = clock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for client in 0..<8 {
                group.addTask {
                    var generator = SeededGenerator(seed: UInt64(client + 1))
                    for step in 0... {
                        let id = products.randomElement(using: &generator)!
                        let answer: Answer
                        var action: String?
                        var name: String?
                        sent.withLock { $0 += 1 }
                        do {
                            if Int.random(in: 0..<5, using: &generator) == 0 {
                                name = "Ref \(id) \(client).\(step)"
                                answer = try await caller.call(.PATCH, "/v1/apps/\(app)/products/\(id)", key: developer,
                                                               json: #"{"referenceName":"\#(name!)"}"#)
                            } else {
                                let chosen = ReviewAction.allCases.randomElement(using: &generator)!
                                action = chosen.rawValue
                                let key = Transition.named(chosen).role == .reviewer ? reviewer : developer
                                answer = try await caller.act(chosen.rawValue, app, id, key: key)
                            }
                        } catch {
                            // No answer: the server is gone. This client's stream ends here.
                            unanswered.withLock { $0 += 1 }
                            return
                        }
                        statuses.add(answer.status)
                        if answer.status == 200 {
                            let product = try caller.decode(Components.Schemas.Product.self, from: answer)
                            acknowledged.withLock {
                                $0.append(Acknowledged(productID: id, version: product.version, action: action,
                                                       referenceName: name))
                            }
                        }
                    }
                }
            }
            // Kill the server once the stream is well under way: eight requests are in flight at any moment.
            group.addTask {
                while acknowledged.value.count < 300 && clock.now - start < .seconds(60) {
                    try await Task.sleep(for: .milliseconds(5))
                }
                first.send(SIGKILL)
            }
            try await group.waitForAll()
        }
        #expect(try await first.waitForExit() == SIGKILL)

        // A new server on the same database.
        let second = try await ServerProcess(databaseURL: service, migrationURL: url)
        let reader = ServiceCaller(second.baseURL)
        let acks = acknowledged.value
        var committedUnacknowledged = 0
        for id in products {
            let product = try await reader.product(app, id, key: admin)
            let events = try await reader.history(app, id, key: admin)
            // Nothing half-written: one event per version, none missing, none doubled.
            #expect(events.map(\.productVersion) == Array(1...product.version).map { Optional($0) }, "\(id)")
            // Every acknowledged change is there, as acknowledged.
            let mine = acks.filter { $0.productID == id }
            for ack in mine {
                let event = events.first { $0.productVersion == ack.version }
                if let action = ack.action {
                    #expect(event?.kind == .action && event?.action?.rawValue == action, "\(id) v\(ack.version) \(action)")
                } else {
                    let change = event?.changes.first { $0.field == "referenceName" }
                    #expect(event?.kind == .edited && change?.new?.value as? String == ack.referenceName,
                            "\(id) v\(ack.version) edit")
                }
            }
            committedUnacknowledged += events.count - 1 - mine.count
            // The state is the replay of the history: each action a legal move from the state before it.
            var state = ReviewState.initial
            var referenceName = "Ref \(id)"
            for event in events {
                if event.kind == .action, let action = event.action {
                    #expect(Transition.named(ReviewAction(rawValue: action.rawValue)!).from.contains(state),
                            "\(id): \(action) from \(state)")
                    #expect(event.fromState?.rawValue == state.rawValue)
                }
                if let to = event.toState { state = ReviewState(rawValue: to.rawValue)! }
                if let name = event.changes.first(where: { $0.field == "referenceName" })?.new?.value as? String {
                    referenceName = name
                }
            }
            #expect(product.state.rawValue == state.rawValue, "\(id)")
            #expect(product.referenceName == referenceName, "\(id)")
        }
        let verification = try await reader.verifyHistory(key: admin)
        #expect(verification.verified && verification.chains.allSatisfy(\.verified))
        print("""
            crash: \(sent.value) requests sent, \(acks.count) changes acknowledged before SIGKILL \
            (all found), \(committedUnacknowledged) committed but unanswered, \(unanswered.value) \
            requests without an answer, statuses \(statuses.counts.sorted { $0.key < $1.key }), chains verified: \
            \(verification.chains.count)
            """)
        #expect(acks.count >= 300)
        second.send(SIGTERM)
        #expect(try await second.waitForExit() == 0)
    }
}
