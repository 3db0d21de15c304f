import CatalogAPI
import CatalogCore
import Foundation
import HTTPTypes
import NIOCore
import HummingbirdTesting
import Testing

/// Racing requests: exactly one winner, the others told so, and history with exactly the winner's event.
@Suite("Concurrency over HTTP")
struct ConcurrencyAPITests {
    @Test("N concurrent actions on one product: one wins, the others get 409, one history event")
    func racingActions() async throws {
        let fixture = try await APIFixture.forSuite("concurrency_api")
        let keys = try await fixture.keys()
        try await fixture.run { api in
            let app = "com.race.actions"
            try await api.createApp(app, key: keys.admin)
            try await api.createProduct(app, "p", type: .consumable, key: keys.developer)
            try await api.move(.approve, app, "p", key: keys.developer)
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for _ in 0..<24 {
                    group.addTask { try await api.act(.submit, app, "p", key: keys.developer).status }
                }
                return try await group.reduce(into: [HTTPResponse.Status]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == .ok }.count == 1)
            #expect(statuses.filter { $0 == .conflict }.count == 23, "\(statuses)")
            let events = try await api.history(app, "p", key: keys.auditor)
            #expect(events.filter { $0.action == .submit }.count == 1)
            #expect(try await api.product(app, "p", key: keys.auditor).version == 3)
        }
    }

    @Test("different actions racing from one state: one wins, the rest are refused with what is allowed now")
    func racingDifferentActions() async throws {
        let fixture = try await APIFixture.forSuite("concurrency_api")
        let keys = try await fixture.keys()
        try await fixture.run { api in
            let app = "com.race.review"
            try await api.createApp(app, key: keys.admin)
            try await api.createProduct(app, "p", type: .nonConsumable, key: keys.developer)
            for action in [ReviewAction.approve, .submit] { try await api.move(action, app, "p", key: keys.developer) }
            try await api.move(.startReview, app, "p", key: keys.reviewer)
            let actions: [ReviewAction] = [.accept, .reject, .requestChanges, .accept, .reject, .requestChanges]
            let results = try await withThrowingTaskGroup(of: (ReviewAction, HTTPResponse.Status).self) { group in
                for action in actions {
                    group.addTask { (action, try await api.act(action, app, "p", key: keys.reviewer, reason: "r").status) }
                }
                return try await group.reduce(into: [(ReviewAction, HTTPResponse.Status)]()) { $0.append($1) }
            }
            let winners = results.filter { $0.1 == .ok }
            #expect(winners.count == 1)
            #expect(results.filter { $0.1 == .conflict }.count == actions.count - 1)
            let events = try await api.history(app, "p", key: keys.auditor).filter { $0.kind == .action }
            #expect(events.last?.action?.rawValue == winners.first?.0.rawValue)
            #expect(events.count == 4)
        }
    }

    @Test("concurrent creations of one productId: one is created, the others conflict")
    func racingCreations() async throws {
        let fixture = try await APIFixture.forSuite("concurrency_api")
        let keys = try await fixture.keys()
        try await fixture.run { api in
            let app = "com.race.create"
            try await api.createApp(app, key: keys.admin)
            let answers = try await withThrowingTaskGroup(of: TestResponse.self) { group in
                for index in 0..<12 {
                    group.addTask {
                        try await api.send(.post, "/v1/apps/\(app)/products", key: keys.developer, json: [
                            "productId": "same", "referenceName": "Name \(index)", "type": "CONSUMABLE"])
                    }
                }
                return try await group.reduce(into: [TestResponse]()) { $0.append($1) }
            }
            let statuses = answers.map(\.status)
            #expect(statuses.filter { $0 == .created }.count == 1)
            #expect(statuses.filter { $0 == .conflict }.count == 11,
                    "\(answers.filter { $0.status != .conflict }.map { "\($0.status) \(String(buffer: $0.body))" })")
            #expect(try await api.history(app, "same", key: keys.auditor).count == 1)
        }
    }

    @Test("concurrent edits of different fields without If-Match all land")
    func concurrentEditsLand() async throws {
        let fixture = try await APIFixture.forSuite("concurrency_api")
        let keys = try await fixture.keys()
        try await fixture.run { api in
            let app = "com.race.edits"
            try await api.createApp(app, key: keys.admin)
            try await api.createProduct(app, "p", type: .nonConsumable, key: keys.developer)
            let edits: [[String: any Sendable]] = [
                ["referenceName": "Renamed"], ["reviewNote": "note"], ["familyShareable": true],
            ]
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for edit in edits {
                    group.addTask { try await api.send(.patch, "/v1/apps/\(app)/products/p", key: keys.developer, json: edit).status }
                }
                return try await group.reduce(into: [HTTPResponse.Status]()) { $0.append($1) }
            }
            #expect(statuses.allSatisfy { $0 == .ok }, "\(statuses)")
            let product = try await api.product(app, "p", key: keys.developer)
            #expect(product.referenceName == "Renamed" && product.reviewNote == "note" && product.familyShareable)
            #expect(product.version == 4)
        }
    }
}
