import AppStoreStandIn
import ArgumentParser
import Foundation
import PurchaseCore

/// `appstore-standin notification`: an App Store Server Notification V2 body about a transaction.
struct NotificationCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notification",
        abstract: "Print an App Store Server Notification V2 body, {\"signedPayload\": ...}.",
        discussion: """
            The transaction is either a signed one (--transaction JWS, nested as it is) or made from the same
            fields as sign-transaction (--bundle, --product, --product-type, ...). Auto-renewable
            subscriptions also carry signed renewal information. Example:
              appstore-standin notification --chain /tmp/standin-chain --type REFUND \\
                --transaction "$(appstore-standin sign-transaction --chain /tmp/standin-chain ...)"
            """)

    @OptionGroup var chain: ChainOptions

    @Option(help: "The notification type: DID_RENEW, REFUND, REVOKE, SUBSCRIBED, ... (Apple's names).")
    var type: String

    @Option(help: "The subtype, when the type has one (INITIAL_BUY, AUTO_RENEW_DISABLED, ...).")
    var subtype: String?

    @Option(help: "A signed transaction (JWS) to nest, instead of making one from the fields.")
    var transaction: String?

    @Option(help: "The product's type when the transaction is made from the fields.")
    var productType: ProductTypeArgument?

    @Option(help: "The app's identifier in the App Store (data.appAppleId).")
    var appAppleId: Int64?

    @OptionGroup var fields: TransactionFields

    func run() throws {
        let signer = try chain.signer()
        let decoded: AppStoreTransaction
        if let transaction {
            decoded = try Self.unverifiedPayload(of: transaction)
        } else {
            guard let productType else {
                throw ValidationError("give --transaction JWS, or --product-type and the transaction's fields")
            }
            decoded = try fields.transaction(type: productType.value)
        }
        let notification = try signer.notification(
            type: NotificationType(rawValue: type), subtype: subtype.map(NotificationSubtype.init(rawValue:)),
            about: decoded, signedTransaction: transaction, appAppleId: appAppleId)
        let body = ["signedPayload": try signer.sign(notification)]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        print(String(decoding: try encoder.encode(body), as: UTF8.self))
    }

    /// The transaction a JWS carries, read without verification: the stand-in nests what it is given.
    static func unverifiedPayload(of jws: String) throws -> AppStoreTransaction {
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = Base64URL.decode(parts[1]),
            let transaction = try? JSONDecoder().decode(AppStoreTransaction.self, from: payload)
        else { throw ValidationError("--transaction is not a signed transaction (JWS)") }
        return transaction
    }
}
