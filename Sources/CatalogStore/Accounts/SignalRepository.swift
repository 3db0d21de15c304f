import CatalogCore
import Foundation
import PostgresNIO
import PurchaseCore

/// Which signals a listing answers.
public struct SignalFilter: Sendable, Hashable {
    public var kind: AccountSignalKind?
    /// Signals naming this account (by its key, either form), as the account concerned or as the other one.
    public var account: UUID?
    /// Raised at or after this instant.
    public var since: Date?
    /// Raised before this instant.
    public var until: Date?

    public init(kind: AccountSignalKind? = nil, account: UUID? = nil, since: Date? = nil, until: Date? = nil) {
        self.kind = kind
        self.account = account
        self.since = since
        self.until = until
    }
}

/// The signals of irregular activity, in PostgreSQL. They are written only by the ledger's functions
/// (`ledger_signals`, in the transaction of the ledger change that raised them); this reads them.
public struct SignalRepository: Sendable {
    let database: Database

    /// One page of the app's signals `filter` selects, newest first, after the signal `afterID`.
    public func list(_ bundleID: String, filter: SignalFilter, afterID: Int64?, limit: Int) async throws -> [AccountSignal] {
        let rows = try await database.execute("""
            SELECT id, app, kind::text, account_token, other_account_token, environment::text, transaction_id,
                   product_id, details::text, source_kind::text, source_id, raised_at
            FROM account_signals s
            WHERE s.app = \(bundleID)
              AND (\(filter.kind?.rawValue)::account_signal_kind IS NULL OR s.kind = \(filter.kind?.rawValue)::account_signal_kind)
              AND (\(filter.account)::uuid IS NULL OR s.account_key = \(filter.account) OR s.other_account_key = \(filter.account))
              AND (\(filter.since)::timestamptz IS NULL OR s.raised_at >= \(filter.since))
              AND (\(filter.until)::timestamptz IS NULL OR s.raised_at < \(filter.until))
              AND (\(afterID)::bigint IS NULL OR s.id < \(afterID))
            ORDER BY s.id DESC
            LIMIT \(limit)
            """)
        return try rows.map(Self.signal(from:))
    }

    static func signal(from row: PostgresRow) throws -> AccountSignal {
        let (id, app, kind, account, other, environment, transaction, product, detailsText, sourceKind, sourceID, at)
            = try row.decode((Int64, String, String, String, String?, String, String, String, String, String, UUID,
                              Date).self)
        guard let kind = AccountSignalKind(rawValue: kind), let environment = AppStoreEnvironment(rawValue: environment)
        else { throw StoreInvariantViolation(description: "unknown kind \(kind) or environment \(environment) of a signal") }
        guard let details = JSONFields(parsing: detailsText) else {
            throw PurchaseRowJSON.unreadable("a signal's details", "not a JSON object")
        }
        do {
            return AccountSignal(
                id: id, bundleID: app, kind: kind, accountToken: account, otherAccountToken: other,
                environment: environment, transactionId: transaction, productId: product,
                storeAccounts: try details.strings(ifPresent: "storeAccounts"),
                storeAccountCount: try details.integer(ifPresent: "storeAccountCount"),
                limit: try details.integer(ifPresent: "limit"),
                windowHours: try details.integer(ifPresent: "windowHours"),
                revocationDate: try PurchaseRowJSON.time(ifPresent: details, "revocationDate"),
                revocationReason: try details.integer(ifPresent: "revocationReason"),
                sourceKind: sourceKind, sourceId: sourceID, raisedAt: at)
        } catch {
            throw PurchaseRowJSON.unreadable("a signal's details", "\(error)")
        }
    }
}
