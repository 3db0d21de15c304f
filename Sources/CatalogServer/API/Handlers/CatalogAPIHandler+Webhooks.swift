import CatalogAPI
import CatalogCore
import CatalogStore
import Foundation
import HTTPTypes
import WebhookClient

extension CatalogAPIHandler {
    /// A new endpoint; its secret is in this answer only. Its URL's host must resolve, now, to addresses a
    /// webhook may reach (and is judged again before every delivery).
    func createWebhook(_ input: Operations.CreateWebhook.Input) async throws -> Operations.CreateWebhook.Output {
        let caller = try Access.require(.manageWebhooks)
        guard case .json(let body) = input.body else { throw Problem(status: .unsupportedMediaType) }
        guard let url = try WebhookEndpoint.validate(url: body.url, apps: body.apps, kinds: body.kinds?.map(\.rawValue))
        else { throw CatalogError.validationFailed([FieldProblem(field: "url", rule: "format", message: "is not a URL")]) }
        let apps = body.apps.map(Set.init)
        guard caller.covers(apps: apps) else {
            throw CatalogError.forbidden("a key limited to some apps may only create webhooks limited to those apps")
        }
        var missing: [FieldProblem] = []
        for (index, bundleID) in (body.apps ?? []).enumerated() where try await database.apps.find(bundleID) == nil {
            missing.append(FieldProblem(field: "apps[\(index)]", rule: "exists", message: "no app \(bundleID)"))
        }
        guard missing.isEmpty else { throw CatalogError.validationFailed(missing) }
        if case .failure(let refusal) = await webhookSender.judge(url) {
            throw CatalogError.validationFailed([FieldProblem(field: "url", rule: "address", message: refusal.reason)])
        }
        let endpoint = WebhookEndpoint(
            id: UUID(), url: url, apps: apps, kinds: body.kinds.map { Set($0.map { EnumMapping.convert($0) }) },
            createdAt: now(), deliveredThrough: 0)
        let secret = WebhookSecret.generate()
        let created: WebhookEndpoint
        do {
            created = try await database.webhooks.create(endpoint, secret: secret, by: caller.id, event: record(
                .webhookCreated, by: caller, app: nil, changes: endpoint.historyFields))
        } catch WebhookRepository.CreateRefusal.tooMany {
            throw CatalogError.conflict("at most \(WebhookEndpoint.maximumCount) webhook endpoints may exist; delete one first")
        }
        deliveries?.wake()
        return .created(.init(body: .json(.init(
            id: created.id.lowercaseText, url: created.url.description, apps: created.apps.map { $0.sorted() },
            kinds: created.kinds.map { $0.map { EnumMapping.convert($0) }.sorted { $0.rawValue < $1.rawValue } },
            createdAt: created.createdAt, deliveredThrough: created.deliveredThrough, secret: secret.text))))
    }

    func listWebhooks(_ input: Operations.ListWebhooks.Input) async throws -> Operations.ListWebhooks.Output {
        let caller = try Access.require(.manageWebhooks)
        let endpoints = try await database.webhooks.list().filter { caller.covers(apps: $0.apps) }
        return .ok(.init(body: .json(.init(items: endpoints.map(Components.Schemas.Webhook.init)))))
    }

    func getWebhook(_ input: Operations.GetWebhook.Input) async throws -> Operations.GetWebhook.Output {
        let caller = try Access.require(.manageWebhooks)
        let endpoint = try await visibleWebhook(input.path.webhookId, for: caller)
        return .ok(.init(body: .json(.init(endpoint))))
    }

    /// Deletes an endpoint and its attempts; deliveries to it stop at once.
    func deleteWebhook(_ input: Operations.DeleteWebhook.Input) async throws -> Operations.DeleteWebhook.Output {
        let caller = try Access.require(.manageWebhooks)
        let endpoint = try await visibleWebhook(input.path.webhookId, for: caller)
        guard try await database.webhooks.delete(endpoint.id, event: record(
            .webhookDeleted, by: caller, app: nil, changes: endpoint.historyFields))
        else { throw CatalogError.notFound("no webhook \(input.path.webhookId)") }
        deliveries?.wake()
        return .noContent(.init())
    }

    func listWebhookDeliveries(_ input: Operations.ListWebhookDeliveries.Input) async throws
        -> Operations.ListWebhookDeliveries.Output
    {
        let caller = try Access.require(.manageWebhooks)
        let endpoint = try await visibleWebhook(input.path.webhookId, for: caller)
        let limit = try PageCursor.limit(input.query.limit)
        let before = try PageCursor.decode(input.query.cursor) { Int64($0) }
        let fetched = try await database.webhooks.attempts(of: endpoint.id, before: before, limit: limit + 1)
        let (attempts, next) = PageCursor.page(fetched, limit: limit) { String($0.id) }
        return .ok(.init(body: .json(.init(items: attempts.map(Components.Schemas.WebhookAttempt.init), nextCursor: next))))
    }

    /// Moves the endpoint's cursor back to just before `from`, and resumes it if it was disabled.
    func redeliverWebhook(_ input: Operations.RedeliverWebhook.Input) async throws
        -> Operations.RedeliverWebhook.Output
    {
        let caller = try Access.require(.manageWebhooks)
        guard case .json(let body) = input.body else { throw Problem(status: .unsupportedMediaType) }
        guard body.from >= 1 else {
            throw CatalogError.validationFailed([FieldProblem(field: "from", rule: "minimum", message: "must be 1 or more")])
        }
        let endpoint = try await visibleWebhook(input.path.webhookId, for: caller)
        var changes = endpoint.historyFields
        changes.append(FieldChange(field: "from", old: nil, new: .integer(Int(body.from))))
        guard let moved = try await database.webhooks.redeliver(endpoint.id, from: body.from, event: record(
            .webhookRedelivered, by: caller, app: nil, changes: changes))
        else { throw CatalogError.notFound("no webhook \(input.path.webhookId)") }
        deliveries?.wake()
        return .ok(.init(body: .json(.init(moved))))
    }

    /// The endpoint `id`, if the key may manage it (its apps are within the key's); otherwise not found.
    private func visibleWebhook(_ id: String, for key: APIKey) async throws -> WebhookEndpoint {
        guard let uuid = UUID(text: id), let endpoint = try await database.webhooks.find(uuid),
              key.covers(apps: endpoint.apps)
        else { throw CatalogError.notFound("no webhook \(id)") }
        return endpoint
    }
}

extension Components.Schemas.Webhook {
    init(_ endpoint: WebhookEndpoint) {
        let state: StatePayload = endpoint.disabledAt != nil ? .disabled : endpoint.failedAttempts > 0 ? .failing : .active
        self.init(
            id: endpoint.id.lowercaseText, url: endpoint.url.description, apps: endpoint.apps.map { $0.sorted() },
            kinds: endpoint.kinds.map { $0.map { EnumMapping.convert($0) }.sorted { $0.rawValue < $1.rawValue } },
            createdAt: endpoint.createdAt, state: state, deliveredThrough: endpoint.deliveredThrough,
            failingSince: endpoint.failingSince, failedAttempts: endpoint.failedAttempts,
            nextAttemptAt: endpoint.nextAttemptAt, disabledAt: endpoint.disabledAt, disabledReason: endpoint.disabledReason)
    }
}

extension Components.Schemas.WebhookAttempt {
    init(_ attempt: WebhookAttempt) {
        self.init(sequence: attempt.sequence, attempt: attempt.attempt, at: attempt.at,
                  durationMs: Int(attempt.duration.components.seconds * 1000
                                  + attempt.duration.components.attoseconds / 1_000_000_000_000_000),
                  status: attempt.status, outcome: OutcomePayload(rawValue: attempt.outcome.rawValue) ?? .failed,
                  error: attempt.error)
    }
}
