import CatalogCore
import Foundation

/// The JSON shape in which the store hands an event to `history_append(event jsonb)`: the one SQL function
/// that maps an event's fields to columns, so that every write records its event in the same statement.
struct HistoryRecordJSON: Encodable {
    struct ActorJSON: Encodable {
        let keyId: UUID?
        let name: String
        let role: String?
    }

    let kind: String
    let app: String?
    let productId: String?
    let productVersion: Int?
    let action: String?
    let fromState: String?
    let toState: String?
    let actor: ActorJSON
    let reason: String?
    let changes: [FieldChange]
    let requestId: String?

    init(_ record: HistoryRecord) {
        kind = record.kind.rawValue
        app = record.bundleID
        productId = record.productID
        productVersion = record.productVersion
        action = record.action?.rawValue
        fromState = record.fromState?.rawValue
        toState = record.toState?.rawValue
        actor = ActorJSON(keyId: record.actor.keyID, name: record.actor.name, role: record.actor.role?.rawValue)
        reason = record.reason
        changes = record.changes
        requestId = record.requestID
    }

    /// The event as the text of a `jsonb` parameter.
    static func text(_ record: HistoryRecord) -> String { JSONColumn.encode(HistoryRecordJSON(record)) }
}
