import CatalogAPI
import CatalogCore
import CatalogStore
import Foundation
import HTTPTypes
import PurchaseCore

extension CatalogAPIHandler {
    /// Both forms of one account's token, from the account itself, which is hashed here and forgotten: it is
    /// never stored, logged (``AccountName`` prints redacted) or answered.
    func createAccountTokens(_ input: Operations.CreateAccountTokens.Input) async throws
        -> Operations.CreateAccountTokens.Output
    {
        let key = try Access.require(.makeAccountTokens)
        let bundleID = input.path.bundleId
        guard mayLookUp(app: bundleID, for: key) else { throw Self.noApp(bundleID) }
        guard case .json(let body) = input.body else { throw Problem(status: .unsupportedMediaType) }
        let account = try AccountName(body.account)
        guard let secret = try await database.accounts.secret(bundleID) else { throw Self.noApp(bundleID) }
        let tokens = AccountTokens.derive(for: account, under: secret)
        return .ok(.init(body: .json(.init(applicationUsername: tokens.applicationUsername,
                                           appAccountToken: tokens.appAccountTokenText))))
    }

    /// What one account owns now, by the catalog's types, and every transaction credited to it.
    func getAccount(_ input: Operations.GetAccount.Input) async throws -> Operations.GetAccount.Output {
        let key = try Access.require(.readAccounts)
        guard let token = AccountToken(parsing: input.path.accountToken) else {
            throw CatalogError.validationFailed([FieldProblem(field: "accountToken", rule: "pattern",
                                                              message: "must be \(AccountToken.rule)")])
        }
        let app = try await visibleApp(input.path.bundleId, for: key)
        let (transactions, types) = try await database.accounts.transactions(app.bundleID, account: token.accountKey)
        let at = now()
        let entitlements = AccountEntitlements(transactions, catalogTypes: types, at: at)
        return .ok(.init(body: .json(.init(token: token, at: at, entitlements: entitlements,
                                           transactions: transactions))))
    }

    /// The app's signals, newest first, a page at a time.
    func listSignals(_ input: Operations.ListSignals.Input) async throws -> Operations.ListSignals.Output {
        let key = try Access.require(.readSignals)
        let query = input.query
        var account: UUID?
        if let text = query.accountToken {
            guard let token = AccountToken(parsing: text) else {
                throw CatalogError.validationFailed([FieldProblem(field: "accountToken", rule: "pattern",
                                                                  message: "must be \(AccountToken.rule)")])
            }
            account = token.accountKey
        }
        let limit = try PageCursor.limit(query.limit)
        let after = try Self.signalCursor(query.cursor)
        let app = try await visibleApp(input.path.bundleId, for: key)
        let filter = SignalFilter(kind: query.kind.map { EnumMapping.convert($0) }, account: account,
                                  since: query.since, until: query.until)
        let fetched = try await database.signals.list(app.bundleID, filter: filter, afterID: after, limit: limit + 1)
        let (page, next) = PageCursor.page(fetched, limit: limit) { "\($0.id)" }
        return .ok(.init(body: .json(.init(items: page.map(Components.Schemas.Signal.init), nextCursor: next))))
    }

    /// Where a listing of signals continues, from its cursor: the last signal's id.
    static func signalCursor(_ cursor: String?) throws(CatalogError) -> Int64? {
        try PageCursor.decode(cursor) { Int64($0).flatMap { $0 > 0 ? $0 : nil } }
    }
}
