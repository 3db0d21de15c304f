import AppStoreStandIn
import ArgumentParser
import Foundation
import PurchaseCore

/// `appstore-standin receipt`: prints a receipt that a stand-in with the same secret verifies.
struct IssueReceipt: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receipt",
        abstract: "Print a new receipt (base64 receipt-data) for a stand-in serving with the same --secret-file.",
        discussion: """
            Examples:
              appstore-standin receipt --secret-file .data/standin.secret --bundle-id com.example.app \\
                --product coins.100 --subscription pro.monthly:2592000
              appstore-standin receipt --secret-file .data/standin.secret --bundle-id com.example.app \\
                --environment Production --product coins.100 --status 21005 --status-calls 2 --json
            """)

    @Option(help: "The file of the secret the stand-in serves with (appstore-standin serve --secret-file).")
    var secretFile: String

    @Option(help: "The app's bundle id.")
    var bundleId: String

    @Option(help: "Production or Sandbox.")
    var environment = "Sandbox"

    @Option(name: .customLong("product"), help: "A product bought once (repeat for more).")
    var products: [String] = []

    @Option(name: .customLong("subscription"),
            help: "An auto-renewable subscription bought now, as productId:seconds until it expires (repeat).")
    var subscriptions: [String] = []

    @Option(help: "The appAccountToken (UUID) of every purchase.")
    var appAccountToken: String?

    @Option(help: "Answer this status instead of 0 at the receipt's own endpoint (e.g. 21005, 21010, 21100).")
    var status: Int?

    @Option(help: "Only for the first this-many calls, then verify normally.")
    var statusCalls: Int?

    @Flag(help: "Send is-retryable: true with --status.")
    var retryable = false

    @Flag(help: "Print the receipt with its id and transactions as JSON instead of the receipt-data alone.")
    var json = false

    func run() throws {
        let seal: ReceiptSeal
        do { seal = try ReceiptSeal.load(secretFile: secretFile) } catch { throw ValidationError(error.description) }
        var purchases = products.map { ReceiptOrder.Purchase(productId: $0, appAccountToken: appAccountToken) }
        for subscription in subscriptions {
            guard let colon = subscription.lastIndex(of: ":"),
                  let seconds = Int(subscription[subscription.index(after: colon)...]), seconds > 0
            else { throw ValidationError("--subscription \(subscription) must be productId:seconds, e.g. pro.monthly:2592000") }
            purchases.append(.init(productId: String(subscription[..<colon]), expiresInSeconds: seconds,
                                   appAccountToken: appAccountToken))
        }
        let order = ReceiptOrder(bundleId: bundleId, environment: environment, transactions: purchases,
                                 status: status, statusCalls: statusCalls, isRetryable: retryable ? true : nil)
        let store = StandInAppStore(seal: seal)
        let issued: IssuedReceipt
        do { issued = try store.issue(order) } catch { throw ValidationError(error.description) }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
            print(String(decoding: try encoder.encode(issued), as: UTF8.self))
        } else {
            print(issued.receipt)
        }
    }
}
