import CatalogCore
import Foundation
import PostgresNIO
import PurchaseCore

/// One account's side of the ledger, in PostgreSQL: the secret its tokens are made under, the transactions
/// credited to it (whichever form of its token they carry) and the catalog's types of their products.
public struct AccountRepository: Sendable {
    let database: Database

    /// The app's account-token secret, or `nil` when there is no such app. Never logged: the type prints redacted.
    public func secret(_ bundleID: String) async throws -> AccountTokenSecret? {
        let rows = try await database.execute("SELECT secret FROM account_token_secrets WHERE app = \(bundleID)")
        guard let row = rows.first else { return nil }
        let bytes = try row.decode(Data.self)
        guard let secret = AccountTokenSecret(bytes: Array(bytes)) else {
            throw StoreInvariantViolation(description: "an account-token secret of \(bytes.count) bytes")
        }
        return secret
    }

    /// The transactions credited to the account `key` in the app, newest first, and the catalog's type now of each
    /// of their products that the catalog has. One index range scan (`ledger_transactions_by_account`).
    public func transactions(_ bundleID: String, account key: UUID) async throws
        -> (transactions: [LedgerTransaction], catalogTypes: [String: PurchaseType])
    {
        let rows = try await database.execute(Transactions(bundleID: bundleID, key: key))
        var transactions: [LedgerTransaction] = []
        var types: [String: PurchaseType] = [:]
        transactions.reserveCapacity(rows.count)
        for row in rows {
            let transaction = try LedgerRepository.transaction(from: row)
            if let type = try row.makeRandomAccess()["current_type"].decode(String?.self).flatMap(PurchaseType.init(rawValue:)) {
                types[transaction.productId] = type
            }
            transactions.append(transaction)
        }
        return (transactions, types)
    }

    struct Transactions: PreparedQuery {
        static let name = "AccountRepository.Transactions"
        static let sql = """
            SELECT \(LedgerRepository.columns),
                   (SELECT p.type::text FROM products p WHERE p.app = t.app AND p.product_id = t.product_id) AS current_type
            FROM ledger_transactions t
            WHERE t.app = $1 AND t.account_key = $2
            ORDER BY t.purchase_date DESC, t.environment DESC, t.transaction_id DESC
            """
        static let bindingDataTypes: [PostgresDataType] = [.text, .uuid]
        let bundleID: String
        let key: UUID

        func makeBindings() -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 2)
            bindings.append(bundleID)
            bindings.append(key)
            return bindings
        }
    }
}
