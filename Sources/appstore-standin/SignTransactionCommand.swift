import AppStoreStandIn
import ArgumentParser

/// `appstore-standin sign-transaction`: a signed transaction, as StoreKit 2 hands one to an app.
struct SignTransactionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign-transaction",
        abstract: "Print a signed transaction (JWS), as StoreKit 2's jwsRepresentation.",
        discussion: """
            Example:
              appstore-standin sign-transaction --chain /tmp/standin-chain --bundle com.example.app \\
                --product com.example.app.coins100 --type consumable --app-account-token \\
                6f6d2c1e-1f0b-4c55-9d59-6b656e636801
            """)

    @OptionGroup var chain: ChainOptions
    @OptionGroup var fields: TransactionFields

    @Option(help: "The product's type: consumable, non-consumable, auto-renewable or non-renewing.")
    var type: ProductTypeArgument

    func run() throws {
        let signer = try chain.signer()
        print(try signer.sign(try fields.transaction(type: type.value)))
    }
}
