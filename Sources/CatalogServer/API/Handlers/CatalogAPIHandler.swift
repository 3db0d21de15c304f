import CatalogAPI
import CatalogCore
import CatalogStore
import Foundation
import PurchaseCore
import WebhookClient

/// The API's operations, one method per `operationId` of `openapi.yaml` (in the extensions beside this file).
/// Each decodes its input, checks who is calling, asks the domain and the store, and encodes the answer.
struct CatalogAPIHandler: APIProtocol {
    let database: Database
    let migrator: Migrator
    let snapshots: IdentifierSnapshots
    let metrics: ServiceMetrics
    /// The keys authenticated without the database, forgotten at once when this server revokes one.
    let keyCache: KeyCache
    /// App Store signed data, verified offline (its verified chains cached).
    let verifier: SignedDataVerifier
    /// Receipts queued and outcomes recorded, told within this process.
    let signals: SubmissionSignals
    /// Submissions per account token of an app.
    let accountLimiter: RateLimiter<AccountKey>
    /// The apps' store settings, read by every purchase and notification.
    let storeSettings: StoreSettingsCache
    /// The time of a change (a parameter so that tests can fix it).
    let now: @Sendable () -> Date
    /// The change feed the events are read from (pages and streams).
    let changes: CatalogChanges
    /// The event streams this process may serve at once, and how often each says it is alive.
    let eventStreams: EventStream.Slots
    /// The pages the streams send, read once for all the streams that need them.
    let eventPages: EventStream.Pages
    let eventStreamHeartbeat: Duration
    /// Judges a new endpoint's URL as deliveries will.
    let webhookSender: WebhookSender
    /// This process's deliveries, woken when an endpoint is created or its cursor moved; `nil` when it delivers none.
    let deliveries: WebhookDeliveryService?

    /// The app `bundleID`, if the key may see it; otherwise not found, exactly as if it did not exist.
    func visibleApp(_ bundleID: String, for key: APIKey) async throws -> App {
        guard mayLookUp(app: bundleID, for: key), let app = try await database.apps.find(bundleID) else {
            throw Self.noApp(bundleID)
        }
        return app
    }

    /// Whether `bundleID` is worth looking up for `key`: a malformed bundle id, or an app the key may not see,
    /// is not found without asking the database.
    func mayLookUp(app bundleID: String, for key: APIKey) -> Bool {
        Identifiers.bundleIDProblems(bundleID).isEmpty && key.canSee(app: bundleID)
    }

    static func noApp(_ bundleID: String) -> CatalogError { .notFound("no app \(bundleID)") }

    /// Rebuilds the app's identifier snapshot now, after a change to what is on sale, so that this server
    /// answers with the change as soon as the change is answered; the database's notification brings it to
    /// the other servers (and again to this one, harmlessly).
    func refreshIdentifiers(_ bundleID: String) async throws {
        snapshots.replace(bundleID, with: try await database.identifiers.app(bundleID))
    }

    /// The history record of a change made by `key` in this request.
    func record(_ kind: HistoryKind, by key: APIKey, app: String?, productID: String? = nil,
                productVersion: Int? = nil, action: ReviewAction? = nil, from: ReviewState? = nil,
                to: ReviewState? = nil, reason: String? = nil, changes: [FieldChange] = []) -> HistoryRecord {
        HistoryRecord(kind: kind, bundleID: app, productID: productID, productVersion: productVersion, action: action,
                      fromState: from, toState: to, actor: key.actor, reason: reason, changes: changes,
                      requestID: RequestScope.requestID)
    }
}

/// Keyset pagination: a page's `nextCursor` is the last item's key, opaque to callers.
enum PageCursor {
    static let defaultLimit = 50
    static let limits = 1...200
    /// The document's `maxLength` of `cursor`.
    static let maximumCursorLength = 400

    static func encode(_ key: String) -> String {
        Data(key.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ cursor: String?) throws(CatalogError) -> String? {
        guard let cursor else { return nil }
        guard cursor.utf8.count <= maximumCursorLength else {
            throw .validationFailed([FieldProblem(field: "cursor", rule: "length",
                                                  message: "is longer than any cursor this API gives out")])
        }
        var base64 = cursor.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64), let key = String(data: data, encoding: .utf8), !key.isEmpty
        else { throw notGivenOut }
        return key
    }

    /// What a cursor holds, read from its key by `parse`: a key `parse` cannot read is no cursor this API gave out.
    static func decode<Value>(_ cursor: String?, as parse: (String) -> Value?) throws(CatalogError) -> Value? {
        guard let key = try decode(cursor) else { return nil }
        guard let value = parse(key) else { throw notGivenOut }
        return value
    }

    static var notGivenOut: CatalogError {
        .validationFailed([FieldProblem(field: "cursor", rule: "format", message: "is not a cursor this API gave out")])
    }

    static func limit(_ requested: Int?) throws(CatalogError) -> Int {
        let limit = requested ?? defaultLimit
        guard limits.contains(limit) else {
            throw .validationFailed([FieldProblem(field: "limit", rule: "range", message: "must be between 1 and 200")])
        }
        return limit
    }

    /// The items of a page fetched with one row more than `limit`, and the cursor of the next page if any.
    static func page<Item>(_ fetched: [Item], limit: Int, key: (Item) -> String) -> ([Item], String?) {
        guard fetched.count > limit else { return (fetched, nil) }
        let items = Array(fetched.prefix(limit))
        return (items, items.last.map { encode(key($0)) })
    }
}

/// Strong entity tags of products and store settings: the quoted version. `ETag` is documented as a JSON
/// string, so the generated layer adds the quotes when it writes the header; ``of(_:)`` gives the unquoted value.
enum EntityTag {
    static func of(_ product: Product) -> String { String(product.version) }

    /// Refuses with 412 when `ifMatch` is given and does not name the product's current version.
    static func check(_ ifMatch: String?, against product: Product) throws(CatalogError) {
        try check(ifMatch, version: product.version)
    }

    /// Refuses with 412 when `ifMatch` is given and does not name `version`, the current one.
    static func check(_ ifMatch: String?, version: Int) throws(CatalogError) {
        guard let ifMatch else { return }
        let tags = ifMatch.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard tags.contains("*") || tags.contains("\"\(version)\"") else {
            throw .preconditionFailed(current: version)
        }
    }
}
