import AppStoreStandIn
import ArgumentParser
import Foundation
import PurchaseCore

/// The chain to sign with.
struct ChainOptions: ParsableArguments {
    @Option(help: "The folder of the chain (appstore-standin chain, or the benchmark's chain/).")
    var chain: String

    func signer() throws -> StandInSigner {
        do {
            return StandInSigner(chain: try TestChain(directory: URL(fileURLWithPath: chain)))
        } catch {
            throw ValidationError("--chain \(chain): no chain there (root.pem, intermediate.pem, leaf.pem, leaf.key): \(error)")
        }
    }
}

/// The fields of a transaction to sign, but its type (`--type` of sign-transaction, `--product-type` of
/// notification).
struct TransactionFields: ParsableArguments {
    @Option(help: "The app's bundle identifier.")
    var bundle: String?

    @Option(help: "The product identifier.")
    var product: String?

    @Option(help: "Production, Sandbox or Xcode.")
    var environment: EnvironmentArgument = EnvironmentArgument(.sandbox)

    @Option(help: "The transaction identifier (default: a new 16-digit one).")
    var transactionId: String?

    @Option(help: "The original transaction identifier (default: the transaction's).")
    var originalTransactionId: String?

    @Option(help: "The app's account token (a UUID).")
    var appAccountToken: String?

    @Option(help: "The price in milliunits (990 is 0.99).")
    var price: Int64 = 990

    @Option(help: "The currency of the price (ISO 4217).")
    var currency: String = "USD"

    @Option(help: "How many units (consumables).")
    var quantity: Int = 1

    @Option(help: "The purchase date, milliseconds since 1970 (default: now).")
    var purchaseDate: Int64?

    @Option(help: "The expiry date, milliseconds since 1970 (default for subscriptions: a month after purchase).")
    var expiresDate: Int64?

    @Option(help: "The signing date, milliseconds since 1970 (default: now).")
    var signedDate: Int64?

    func transaction(type: AppStoreProductType) throws -> AppStoreTransaction {
        guard let bundle else { throw ValidationError("--bundle is required") }
        guard let product else { throw ValidationError("--product is required") }
        var token: UUID?
        if let appAccountToken {
            guard let uuid = UUID(uuidString: appAccountToken) else {
                throw ValidationError("--app-account-token must be a UUID, not \(appAccountToken)")
            }
            token = uuid
        }
        let now = AppStoreDate(Date())
        return .standIn(
            bundleId: bundle, productId: product, type: type, environment: environment.value,
            transactionId: transactionId ?? StandInIdentifiers.transactionId(),
            originalTransactionId: originalTransactionId, appAccountToken: token, price: price, currency: currency,
            quantity: quantity, purchaseDate: purchaseDate.map(AppStoreDate.init(millisecondsSince1970:)) ?? now,
            expiresDate: expiresDate.map(AppStoreDate.init(millisecondsSince1970:)),
            signedDate: signedDate.map(AppStoreDate.init(millisecondsSince1970:)) ?? now)
    }
}

/// An App Store environment on the command line, by Apple's name in any case.
struct EnvironmentArgument: ExpressibleByArgument {
    let value: AppStoreEnvironment

    init(_ value: AppStoreEnvironment) { self.value = value }

    init?(argument: String) {
        guard let value = AppStoreEnvironment.allCases.first(where: { $0.rawValue.lowercased() == argument.lowercased() })
        else { return nil }
        self.value = value
    }

    var defaultValueDescription: String { value.rawValue }
    static var allValueStrings: [String] { AppStoreEnvironment.allCases.map(\.rawValue) }
}

/// A product type on the command line: consumable, non-consumable, auto-renewable, non-renewing (or Apple's
/// own spelling).
struct ProductTypeArgument: ExpressibleByArgument {
    let value: AppStoreProductType

    static let names: [(String, AppStoreProductType)] = [
        ("consumable", .consumable), ("non-consumable", .nonConsumable),
        ("auto-renewable", .autoRenewableSubscription), ("non-renewing", .nonRenewingSubscription),
    ]

    init?(argument: String) {
        let known = Self.names.map(\.1)
        if let (_, value) = Self.names.first(where: { $0.0 == argument.lowercased() }) {
            self.value = value
        } else if let value = known.first(where: { $0.rawValue == argument }) {
            self.value = value
        } else {
            return nil
        }
    }

    static var allValueStrings: [String] { names.map(\.0) }
}
