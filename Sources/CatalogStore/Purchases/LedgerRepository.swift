import CatalogCore
import Foundation
import PostgresNIO
import PurchaseCore

/// The ledger of App Store transactions, in PostgreSQL: reads, exports and the summary finance reconciles, and
/// the writes of the two sources that are not client submissions (the verification worker's outcomes, the App
/// Store's notifications). Every write goes through sql/0013's ledger_merge, which records the history event of
/// each change in the app's chain, in the same transaction.
public struct LedgerRepository: Sendable {
    let database: Database

    static let columnList = [
        "app", "environment::text AS environment", "transaction_id", "original_transaction_id", "product_id",
        "apple_type", "catalog_type::text AS catalog_type", "catalog_mismatch", "quantity", "purchase_date",
        "original_purchase_date", "expires_date", "revocation_date", "revocation_reason", "price", "currency",
        "storefront", "app_transaction_id", "in_app_ownership_type", "web_order_line_item_id", "transaction_reason",
        "account_token", "version", "created_at", "updated_at",
        "(extract(epoch FROM purchase_date) * 1000000)::bigint AS purchase_micros",
    ]
    static let columns = columnList.joined(separator: ", ")

    /// The transaction `transactionID` of the app in `environment`, or when no environment is given the first of
    /// Production, Sandbox, Xcode and LocalTesting that has one; with every source that brought it.
    public func find(_ bundleID: String, transactionID: String, environment: AppStoreEnvironment?) async throws
        -> (LedgerTransaction, [LedgerSource])?
    {
        try await database.withOneConnection {
            let rows = try await database.execute("""
                SELECT \(unescaped: Self.columns) FROM ledger_transactions
                WHERE app = \(bundleID) AND transaction_id = \(transactionID)
                  AND (\(environment?.rawValue)::store_environment IS NULL
                       OR environment = \(environment?.rawValue)::store_environment)
                ORDER BY environment LIMIT 1
                """)
            guard let row = rows.first else { return nil }
            let transaction = try Self.transaction(from: row)
            let sources = try await database.execute("""
                SELECT source_kind::text, source_id, account_token, recorded, at FROM ledger_sources
                WHERE app = \(bundleID) AND environment = \(transaction.environment.rawValue)::store_environment
                  AND transaction_id = \(transactionID)
                ORDER BY at, source_id
                """).map { row in
                let (kind, id, account, recorded, at) = try row.decode((String, UUID, String, Bool, Date).self)
                return LedgerSource(kind: LedgerSource.Kind(rawValue: kind) ?? .submission, id: id,
                                    accountToken: account, recorded: recorded, at: at)
            }
            return (transaction, sources)
        }
    }

    /// One page of the app's transactions `filter` selects, by purchase date (newest or oldest first), after
    /// `cursor`; each with the cursor that continues after it.
    public func list(_ bundleID: String, filter: LedgerFilter, newestFirst: Bool, after cursor: LedgerCursor?,
                     limit: Int) async throws -> [(LedgerTransaction, LedgerCursor)]
    {
        try await database.execute(Self.query(bundleID, filter: filter, newestFirst: newestFirst, after: cursor,
                                              limit: limit)).map { row in
            let transaction = try Self.transaction(from: row)
            let micros = try row.makeRandomAccess()["purchase_micros"].decode(Int64.self)
            return (transaction, LedgerCursor(purchaseMicroseconds: micros, environment: transaction.environment,
                                              transactionID: transaction.transactionId))
        }
    }

    /// Every transaction `filter` selects, in the listing's order, read in batches of `batchSize` as the reader
    /// takes them (keyset pages, each a short statement of its own): an export holds one batch at a time.
    public func export(_ bundleID: String, filter: LedgerFilter, newestFirst: Bool, batchSize: Int = 1_000)
        -> ExportedTransactions
    {
        ExportedTransactions(repository: self, bundleID: bundleID, filter: filter, newestFirst: newestFirst,
                             batchSize: batchSize)
    }

    /// Per UTC day of purchase, environment, product and currency: transactions, units, amounts, refunds. Rows of
    /// different environments are never added together. (The filter's conditions are those of ``list``: each a
    /// parameter that is NULL when it does not apply.)
    public func summary(_ bundleID: String, filter: LedgerFilter) async throws -> [LedgerSummaryRow] {
        let rows = try await database.execute("""
            SELECT to_char(purchase_date AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, environment::text, product_id,
                   currency, count(*)::bigint, coalesce(sum(quantity), 0)::bigint, sum(price)::bigint,
                   count(price)::bigint, count(revocation_date)::bigint,
                   sum(price) FILTER (WHERE revocation_date IS NOT NULL)::bigint
            FROM ledger_transactions
            WHERE app = \(bundleID)
              AND (\(filter.accountToken)::text IS NULL OR account_key = iap_account_key(\(filter.accountToken)))
              AND (\(filter.productID)::text IS NULL OR product_id = \(filter.productID))
              AND (\(filter.originalTransactionID)::text IS NULL OR original_transaction_id = \(filter.originalTransactionID))
              AND (\(filter.environment?.rawValue)::store_environment IS NULL
                   OR environment = \(filter.environment?.rawValue)::store_environment)
              AND (\(filter.since)::timestamptz IS NULL OR purchase_date >= \(filter.since))
              AND (\(filter.until)::timestamptz IS NULL OR purchase_date < \(filter.until))
            GROUP BY 1, environment, product_id, currency
            ORDER BY 1, environment, product_id, currency NULLS LAST
            """)
        return try rows.map { row in
            let (day, environment, productID, currency, transactions, units, amount, priced, refunds, refunded)
                = try row.decode((String, String, String, String?, Int, Int, Int64?, Int, Int, Int64?).self)
            return LedgerSummaryRow(
                day: day, environment: AppStoreEnvironment(rawValue: environment) ?? .production, productID: productID,
                currency: currency, transactions: transactions, units: units, amount: amount,
                pricedTransactions: priced, refunds: refunds, refundedAmount: refunded)
        }
    }

    fileprivate static func query(_ bundleID: String, filter: LedgerFilter, newestFirst: Bool, after cursor: LedgerCursor?,
                                  limit: Int) -> PostgresQuery {
        let direction = newestFirst ? "DESC" : "ASC"
        let comparison = newestFirst ? "<" : ">"
        return """
            SELECT \(unescaped: columns) FROM ledger_transactions
            WHERE app = \(bundleID)
              AND (\(filter.accountToken)::text IS NULL OR account_key = iap_account_key(\(filter.accountToken)))
              AND (\(filter.productID)::text IS NULL OR product_id = \(filter.productID))
              AND (\(filter.originalTransactionID)::text IS NULL OR original_transaction_id = \(filter.originalTransactionID))
              AND (\(filter.environment?.rawValue)::store_environment IS NULL
                   OR environment = \(filter.environment?.rawValue)::store_environment)
              AND (\(filter.since)::timestamptz IS NULL OR purchase_date >= \(filter.since))
              AND (\(filter.until)::timestamptz IS NULL OR purchase_date < \(filter.until))
              AND (\(cursor?.purchaseMicroseconds)::bigint IS NULL
                   OR (purchase_date, environment, transaction_id) \(unescaped: comparison)
                      (timestamptz 'epoch' + \(cursor?.purchaseMicroseconds)::bigint * interval '1 microsecond',
                       \(cursor?.environment.rawValue)::store_environment, \(cursor?.transactionID)::text))
            ORDER BY purchase_date \(unescaped: direction), environment \(unescaped: direction),
                     transaction_id \(unescaped: direction)
            LIMIT \(limit)
            """
    }

    static func transaction(from row: PostgresRow) throws -> LedgerTransaction {
        let columns = row.makeRandomAccess()
        func value<T: PostgresDecodable>(_ name: String, _ type: T.Type = T.self) throws -> T {
            try columns[name].decode(T.self)
        }
        let environment: String = try value("environment")
        guard let parsed = AppStoreEnvironment(rawValue: environment) else {
            throw StoreInvariantViolation(description: "unknown environment \(environment) in the ledger")
        }
        return LedgerTransaction(
            bundleID: try value("app"), environment: parsed, transactionId: try value("transaction_id"),
            originalTransactionId: try value("original_transaction_id"), productId: try value("product_id"),
            appleType: try value("apple_type"),
            catalogType: try value("catalog_type", String?.self).flatMap(PurchaseType.init(rawValue:)),
            catalogMismatch: try value("catalog_mismatch"), quantity: try value("quantity"),
            purchaseDate: try value("purchase_date"), originalPurchaseDate: try value("original_purchase_date"),
            expiresDate: try value("expires_date"), revocationDate: try value("revocation_date"),
            revocationReason: try value("revocation_reason"), price: try value("price"), currency: try value("currency"),
            storefront: try value("storefront"), appTransactionId: try value("app_transaction_id"),
            inAppOwnershipType: try value("in_app_ownership_type"),
            webOrderLineItemId: try value("web_order_line_item_id"),
            transactionReason: try value("transaction_reason"), accountToken: try value("account_token"),
            version: try value("version"), createdAt: try value("created_at"), updatedAt: try value("updated_at"))
    }
}

/// The transactions of an export, one at a time, fetched a batch at a time as the reader asks for more.
public struct ExportedTransactions: AsyncSequence, Sendable {
    public typealias Element = LedgerTransaction
    let repository: LedgerRepository
    let bundleID: String
    let filter: LedgerFilter
    let newestFirst: Bool
    let batchSize: Int

    public struct AsyncIterator: AsyncIteratorProtocol {
        let transactions: ExportedTransactions
        var batch: [LedgerTransaction] = []
        var index = 0
        var after: LedgerCursor?
        var exhausted = false

        public mutating func next() async throws -> LedgerTransaction? {
            if index == batch.count {
                guard !exhausted else { return nil }
                let page = try await transactions.repository.list(
                    transactions.bundleID, filter: transactions.filter, newestFirst: transactions.newestFirst,
                    after: after, limit: transactions.batchSize)
                batch = page.map(\.0)
                index = 0
                exhausted = page.count < transactions.batchSize
                guard let last = page.last else { return nil }
                after = last.1
            }
            defer { index += 1 }
            return batch[index]
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(transactions: self) }
}
