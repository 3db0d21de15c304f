import Foundation

/// Which signals one source's merge into the ledger raises (``LedgerTransaction/merging(_:account:at:)``): the rule
/// `ledger_signals` (sql) applies in the transaction of the ledger change, here in Swift for its unit tests and for
/// a test that runs both over the same cases.
public enum AccountSignalRule {
    /// A signal the rule raises, before the database numbers and dates it.
    public enum Raised: Sendable, Hashable {
        /// `credited` holds the transaction; `broughtFor` (the submitting account, or Apple's `appAccountToken`)
        /// is another account.
        case sharedTransaction(credited: String, broughtFor: String)
        /// The transaction's `appTransactionId` is a new App Store account for `account` within the window, and
        /// makes their number more than the limit; `storeAccounts` are all of them, sorted.
        case manyStoreAccounts(account: String, storeAccounts: [String])
        /// The source marked the transaction refunded or revoked.
        case refund(account: String)
    }

    /// The signals of a merge: the transaction `before` it (nil: it was new), `after` it, brought for `account`
    /// (`""` for none) by a source whose facts carry Apple's `appleAccount`; `recentStoreAccounts` maps each
    /// `appTransactionId` of the credited account's other transactions of the environment purchased within the
    /// window ending at `after`'s purchase (after − window, after] to itself; `limit` is the app's N.
    ///
    /// - `sharedTransaction` for each of `account` and `appleAccount` that is another account than the one
    ///   credited (compared by ``AccountToken/accountKey``, so the two forms of one account are one account);
    ///   the database raises it once per transaction and other account.
    /// - `refund` when the transaction becomes revoked (new and revoked, or revoked now and not before).
    /// - `manyStoreAccounts` when the transaction newly counts for its account (new, or it gains its account or
    ///   its `appTransactionId` now), its `appTransactionId` is not among `recentStoreAccounts`, and with it
    ///   there are more than `limit`.
    public static func raised(before: LedgerTransaction?, after: LedgerTransaction, account: String,
                              appleAccount: String?, recentStoreAccounts: Set<String>, limit: Int) -> [Raised] {
        var raised: [Raised] = []
        let credited = after.accountToken
        if let creditedKey = AccountToken(parsing: credited)?.accountKey {
            var seen: Set<UUID> = [creditedKey]
            for other in [account, appleAccount ?? ""] {
                guard let token = AccountToken(parsing: other), seen.insert(token.accountKey).inserted else { continue }
                raised.append(.sharedTransaction(credited: credited, broughtFor: token.text))
            }
        }
        let counted = { (row: LedgerTransaction?) in row.map { !$0.accountToken.isEmpty && $0.appTransactionId != nil } ?? false }
        if !credited.isEmpty, let storeAccount = after.appTransactionId, counted(after), !counted(before),
           !recentStoreAccounts.contains(storeAccount), recentStoreAccounts.count + 1 > limit {
            raised.append(.manyStoreAccounts(account: credited,
                                             storeAccounts: recentStoreAccounts.union([storeAccount]).sorted()))
        }
        if after.revocationDate != nil, before?.revocationDate == nil {
            raised.append(.refund(account: credited))
        }
        return raised
    }
}
