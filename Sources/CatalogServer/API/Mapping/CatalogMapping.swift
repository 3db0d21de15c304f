import CatalogAPI
import CatalogCore
import Foundation
import OpenAPIRuntime

extension Components.Schemas.App {
    init(_ app: App) {
        self.init(bundleId: app.bundleID, name: app.name, newsstand: app.newsstand, primaryLocale: app.primaryLocale,
                  createdAt: app.createdAt, updatedAt: app.updatedAt)
    }
}

extension Components.Schemas.SubscriptionGroup {
    init(_ group: SubscriptionGroup) {
        self.init(id: group.id.lowercaseText, referenceName: group.referenceName,
                  localizations: group.localizations.map { .init(locale: $0.locale, name: $0.name) },
                  createdAt: group.createdAt, updatedAt: group.updatedAt)
    }
}

extension Components.Schemas.Key {
    init(_ key: APIKey) {
        self.init(id: key.id.lowercaseText, name: key.name, role: EnumMapping.convert(key.role),
                  apps: key.apps.map { $0.sorted() }, createdAt: key.createdAt, expiresAt: key.expiresAt,
                  revokedAt: key.revokedAt)
    }
}

extension Components.Schemas.HistoryEvent {
    init(_ event: HistoryEvent) throws {
        let record = event.record
        self.init(
            sequence: Int(event.sequence), chainSequence: Int(event.chainSequence), at: event.at, app: record.bundleID, productId: record.productID,
            productVersion: record.productVersion, kind: EnumMapping.convert(record.kind),
            action: record.action.map { EnumMapping.convert($0) },
            fromState: record.fromState.map { EnumMapping.convert($0) },
            toState: record.toState.map { EnumMapping.convert($0) },
            actor: .init(keyId: record.actor.keyID?.lowercaseText, name: record.actor.name,
                         role: record.actor.role.map { EnumMapping.convert($0) }),
            reason: record.reason,
            changes: try record.changes.map(Components.Schemas.FieldChange.init),
            requestId: record.requestID, previousHash: event.previousHash, hash: event.hash)
    }
}
