import CatalogAPI
import CatalogAPIConventions
import CatalogCore
import CatalogStore
import Foundation
import OpenAPIRuntime
import PurchaseCore

/// The ledger as files: CSV for spreadsheets and finance, NDJSON for tools, streamed as the database reads
/// them (``HistoryExport`` is the history's).
enum TransactionExport {
    enum Format {
        case csv, ndjson
    }

    /// The transactions of `transactions` in `format`, in chunks of about 64 KiB: the body of a streamed answer.
    static func body(_ transactions: ExportedTransactions, format: Format) -> HTTPBody {
        let chunks = format == .csv ? ExportChunks(rows: transactions, header: csvHeader, line: csvLine)
            : ExportChunks(rows: transactions, header: "", line: ndjsonLine)
        return HTTPBody(chunks, length: .unknown, iterationBehavior: .single)
    }

    /// CSV columns, in order: the names of the JSON answer.
    static let csvColumns = [
        "transactionId", "environment", "originalTransactionId", "productId", "appleType", "catalogType",
        "catalogMismatch", "quantity", "purchaseDate", "originalPurchaseDate", "expiresDate", "revocationDate",
        "revocationReason", "currency", "amount", "storefront", "appTransactionId", "inAppOwnershipType",
        "webOrderLineItemId", "transactionReason", "accountToken", "version", "createdAt", "updatedAt",
    ]

    /// RFC 4180: UTF-8 with a byte-order mark (so that spreadsheets read it as UTF-8), a header row, CRLF.
    static let csvHeader = "\u{FEFF}" + csvColumns.joined(separator: ",") + "\r\n"

    static func csvLine(_ transaction: LedgerTransaction) -> String {
        let cells: [String?] = [
            transaction.transactionId, transaction.environment.rawValue, transaction.originalTransactionId,
            transaction.productId, transaction.appleType, transaction.catalogType?.rawValue,
            String(transaction.catalogMismatch), String(transaction.quantity),
            RFC3339Text.milliseconds(transaction.purchaseDate),
            transaction.originalPurchaseDate.map(RFC3339Text.milliseconds), transaction.expiresDate.map(RFC3339Text.milliseconds),
            transaction.revocationDate.map(RFC3339Text.milliseconds), transaction.revocationReason.map(String.init),
            transaction.price == nil ? nil : transaction.currency, transaction.price.map(Milliunits.amount),
            transaction.storefront, transaction.appTransactionId, transaction.inAppOwnershipType,
            transaction.webOrderLineItemId, transaction.transactionReason,
            transaction.accountToken.isEmpty ? nil : transaction.accountToken, String(transaction.version),
            RFC3339Text.milliseconds(transaction.createdAt), RFC3339Text.milliseconds(transaction.updatedAt),
        ]
        return cells.map { HistoryExport.csvCell($0 ?? "") }.joined(separator: ",") + "\r\n"
    }

    /// One transaction per line, as the JSON answer writes it.
    static func ndjsonLine(_ transaction: LedgerTransaction) -> String {
        AnswerJSON.line(Components.Schemas.LedgerTransaction(transaction)) + "\n"
    }
}
