import CatalogAPI
import CatalogCore
import Foundation
import HTTPTypes
import NIOCore
import HummingbirdTesting
import Testing

/// A product of each type driven through every transition over HTTP, with the key each action needs.
@Suite("Lifecycle over HTTP")
struct LifecycleAPITests {
    @Test("every type goes through every transition, and history records each move", arguments: PurchaseType.allCases)
    func everyTypeThroughEveryTransition(type: PurchaseType) async throws {
        let fixture = try await APIFixture.forSuite("lifecycle_api")
        let keys = try await fixture.keys()
        try await fixture.run { api in
            let app = "com.lifecycle.\(type.rawValue.lowercased().replacingOccurrences(of: "_", with: "-"))"
            try await api.createApp(app, key: keys.admin, newsstand: true)
            let group = type == .autoRenewableSubscription ? try await api.createGroup(app, key: keys.developer) : nil
            let id = "product.1"
            var product = try await api.createProduct(app, id, type: type, key: keys.developer, groupID: group?.id)
            #expect(product.state == .pendingDeveloperApproval && product.version == 1 && product.missingForApproval.isEmpty)
            #expect(product.allowedActions == [.approve])

            var steps: [(ReviewAction?, ReviewState)] = []
            func step(_ action: ReviewAction, by key: String, to state: ReviewState) async throws {
                product = try await api.move(action, app, id, key: key)
                #expect(product.state.rawValue == state.rawValue, "\(action) should lead to \(state)")
                steps.append((action, state))
            }
            func edit(_ json: [String: any Sendable], to state: ReviewState) async throws {
                product = try expect(try await api.send(.patch, "/v1/apps/\(app)/products/\(id)", key: keys.developer,
                                                        json: json), .ok, as: Components.Schemas.Product.self)
                #expect(product.state.rawValue == state.rawValue)
                steps.append((nil, state))
            }

            try await step(.approve, by: keys.developer, to: .approvedByDeveloper)
            try await edit(["reviewNote": "edited after approval"], to: .pendingDeveloperApproval)
            try await step(.approve, by: keys.developer, to: .approvedByDeveloper)
            try await step(.submit, by: keys.developer, to: .waitingForReview)
            try await step(.withdraw, by: keys.developer, to: .approvedByDeveloper)
            try await step(.submit, by: keys.developer, to: .waitingForReview)
            try await step(.startReview, by: keys.reviewer, to: .inReview)
            try await step(.requestChanges, by: keys.reviewer, to: .developerActionRequired)
            try await step(.resubmit, by: keys.developer, to: .waitingForReview)
            try await step(.startReview, by: keys.reviewer, to: .inReview)
            #expect(try await api.identifiers(app).isEmpty)
            try await step(.accept, by: keys.reviewer, to: .readyForSale)
            #expect(product.onSale && product.live != nil && product.draft == nil)
            #expect(try await api.identifiers(app) == [id])

            // A change: edited into a draft while the live revision stays on sale.
            try await edit(["reviewNote": "second revision"], to: .readyForSale)
            #expect(product.live?.reviewNote == "edited after approval" && product.draft?.reviewNote == "second revision")
            try await step(.submitChange, by: keys.developer, to: .waitingForReview)
            try await step(.startReview, by: keys.reviewer, to: .inReview)
            try await step(.requestChanges, by: keys.reviewer, to: .developerActionRequired)
            #expect(try await api.identifiers(app) == [id])
            try await step(.cancelChange, by: keys.developer, to: .readyForSale)
            #expect(product.reviewNote == "edited after approval" && product.draft == nil)

            try await step(.removeFromSale, by: keys.developer, to: .developerRemovedFromSale)
            #expect(!product.onSale && !product.clearedForSale)
            #expect(try await api.identifiers(app).isEmpty)
            try await step(.restoreToSale, by: keys.developer, to: .readyForSale)
            #expect(try await api.identifiers(app) == [id])

            try await edit(["reviewNote": "third revision"], to: .readyForSale)
            try await step(.submitChange, by: keys.developer, to: .waitingForReview)
            try await step(.startReview, by: keys.reviewer, to: .inReview)
            try await step(.accept, by: keys.reviewer, to: .readyForSale)
            #expect(product.live?.reviewNote == "third revision")

            try await edit(["reviewNote": "fourth revision"], to: .readyForSale)
            try await step(.submitChange, by: keys.developer, to: .waitingForReview)
            try await step(.startReview, by: keys.reviewer, to: .inReview)
            try await step(.reject, by: keys.reviewer, to: .rejected)
            #expect(!product.onSale && product.allowedActions.isEmpty)
            #expect(try await api.identifiers(app).isEmpty)

            let actionsTaken = Set(steps.compactMap(\.0))
            #expect(actionsTaken == Set(ReviewAction.allCases), "every action was exercised")

            // History: the creation, then one event per step, in order, with its states and actor.
            let events = try await api.history(app, id, key: keys.auditor)
            #expect(events.count == steps.count + 1)
            #expect(events.first?.kind == .created)
            for (event, (action, state)) in zip(events.dropFirst(), steps) {
                #expect(event.kind == (action == nil ? .edited : .action))
                #expect(event.action?.rawValue == action?.rawValue)
                #expect(event.toState?.rawValue == (action == nil ? event.toState?.rawValue : state.rawValue))
                #expect(event.actor.role == (action.map { Transition.named($0).role == .reviewer } == true ? .reviewer : .developer))
            }
            #expect(zip(events, events.dropFirst()).allSatisfy { $0.sequence < $1.sequence && $0.hash == $1.previousHash })
            #expect(events.last?.reason == "reason")
        }
    }

    @Test("an auto-renewable subscription needs a group of its own app and a level free in the group")
    func subscriptionGroupRules() async throws {
        let fixture = try await APIFixture.forSuite("lifecycle_api")
        let keys = try await fixture.keys()
        try await fixture.run { api in
            try await api.createApp("com.lifecycle.groups", key: keys.admin)
            try await api.createApp("com.lifecycle.other", key: keys.admin)
            let group = try await api.createGroup("com.lifecycle.groups", key: keys.developer)
            let foreign = try await api.createGroup("com.lifecycle.other", key: keys.developer)
            try await api.createProduct("com.lifecycle.groups", "gold", type: .autoRenewableSubscription,
                                        key: keys.developer, groupID: group.id, level: 1)
            let taken = try await api.send(.post, "/v1/apps/com.lifecycle.groups/products", key: keys.developer, json: [
                "productId": "silver", "referenceName": "Silver", "type": "AUTO_RENEWABLE_SUBSCRIPTION",
                "subscriptionGroupId": group.id, "level": 1,
            ])
            #expect(try problem(taken, .conflict, "conflict").detail?.contains("level") == true)
            let wrongApp = try await api.send(.post, "/v1/apps/com.lifecycle.groups/products", key: keys.developer, json: [
                "productId": "bronze", "referenceName": "Bronze", "type": "AUTO_RENEWABLE_SUBSCRIPTION",
                "subscriptionGroupId": foreign.id,
            ])
            #expect(try problem(wrongApp, .unprocessableContent, "validation-failed").errors?.first?.field
                    == "subscriptionGroupId")
        }
    }
}
