import CatalogAPI
import CatalogCore
import CatalogTestSupport
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Many clients acting on few products at once: the accepted actions, in history order, explain every
/// product's final state, and history holds each transition once.
@Suite("Races over HTTP")
struct RaceAPITests {
    @Test("1,000 actions from 50 concurrent clients over 20 products")
    func thousandActions() async throws {
        let fixture = try await APIFixture.forSuite("race_api")
        let keys = try await fixture.keys()
        try await fixture.run { api in
            let app = "com.race.thousand"
            try await api.createApp(app, key: keys.admin)
            let products = (0..<20).map { "p\($0)" }
            for id in products { try await api.createProduct(app, id, type: .nonConsumable, key: keys.developer) }
            let accepted = Tally<String>()
            let statuses = Tally<Int>()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for client in 0..<50 {
                    group.addTask {
                        var generator = SeededGenerator(seed: UInt64(client + 1))
                        for _ in 0..<20 {
                            let id = products.randomElement(using: &generator)!
                            let action = ReviewAction.allCases.randomElement(using: &generator)!
                            let key = Transition.named(action).role == .reviewer ? keys.reviewer : keys.developer
                            let response = try await api.act(action, app, id, key: key, reason: "race")
                            statuses.add(Int(response.status.code))
                            if response.status == .ok { accepted.add(id) }
                        }
                    }
                }
                try await group.waitForAll()
            }
            let counts = statuses.counts
            #expect(counts.values.reduce(0, +) == 1_000)
            #expect(Set(counts.keys).isSubset(of: [200, 409, 422]), "\(counts)")
            #expect(counts[200, default: 0] > 0)
            for id in products {
                let product = try await api.product(app, id, key: keys.auditor)
                let events = try await api.history(app, id, key: keys.auditor)
                let actions = events.filter { $0.kind == .action }
                // Each accepted action is in history exactly once, nothing else is.
                #expect(actions.count == accepted.counts[id, default: 0], "\(id)")
                // The version counts the creation and every action.
                #expect(product.version == events.count, "\(id)")
                // The accepted actions, in history order, are a valid walk from the initial state to the final one.
                var state = ReviewState.initial
                for event in actions {
                    let transition = Transition.named(ReviewAction(rawValue: event.action!.rawValue)!)
                    #expect(transition.from.contains(state), "\(id): \(event.action!) from \(state)")
                    #expect(event.fromState?.rawValue == state.rawValue)
                    state = ReviewState(rawValue: event.toState!.rawValue)!
                }
                #expect(product.state.rawValue == state.rawValue, "\(id)")
            }
        }
    }
}
