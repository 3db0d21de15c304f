import Crypto
import Foundation
import PurchaseCore
import Synchronization

/// The stand-in's verifyReceipt: answers as Apple documents it for the receipts it issued, with the latency and
/// outages it is told to have, and counts what it answered.
///
/// Answers, in Apple's order of checks: an outage (503 or a dropped connection) at once; then, after the
/// latency, 21000 for a body that is not a JSON object, 21002 for receipt-data that is not a receipt of the
/// stand-in, 21003 for one sealed under another secret, 21007 for a sandbox receipt at production and 21008
/// for a production receipt at the sandbox, 21004 when the stand-in knows the app's shared secret and the
/// `password` differs, the receipt's forced status (for its first calls, or all), else 0 with the receipt.
public final class StandInAppStore: Sendable {
    /// Seals and opens receipts.
    public let seal: ReceiptSeal
    /// What it has answered.
    public let counts = VerificationCounts()
    private let currentBehaviour: Mutex<StandInBehaviour>
    /// The apps' shared secrets, by bundle id, as digests (the secrets themselves are never kept or shown).
    private let sharedSecrets: Mutex<[String: SHA256Digest]>

    public init(seal: ReceiptSeal, behaviour: StandInBehaviour = .prompt, sharedSecrets: [String: String] = [:]) {
        self.seal = seal
        currentBehaviour = Mutex(behaviour)
        self.sharedSecrets = Mutex(sharedSecrets.mapValues { SHA256.hash(data: Data($0.utf8)) })
    }

    /// The behaviour now.
    public var behaviour: StandInBehaviour { currentBehaviour.withLock { $0 } }

    /// Changes the behaviour; answers the new one.
    @discardableResult
    public func change(_ change: BehaviourChange, now: Date = Date()) -> StandInBehaviour {
        currentBehaviour.withLock { behaviour in
            behaviour = change.applied(to: behaviour, now: now)
            return behaviour
        }
    }

    /// Makes the stand-in check `password` for `bundleId`'s receipts (21004 when it differs), or stop checking.
    public func setSharedSecret(_ secret: AppStoreSharedSecret?, for bundleId: String) {
        sharedSecrets.withLock { secrets in
            secrets[bundleId] = secret.map { SHA256.hash(data: Data($0.text.utf8)) }
        }
    }

    /// A new receipt for `order`.
    public func issue(_ order: ReceiptOrder, now: Date = Date()) throws(ReceiptOrder.Problem) -> IssuedReceipt {
        let receipt = try order.receipt(now: now)
        return IssuedReceipt(receipt: seal.seal(receipt), id: receipt.id, bundleId: receipt.bundleId,
                             environment: receipt.environment.environment.rawValue,
                             transactions: receipt.transactions)
    }

    /// How a verifyReceipt call is answered.
    public enum Answer: Sendable, Hashable {
        /// HTTP 200 with this body.
        case answered(VerifyReceiptResponse)
        /// HTTP 503, no body.
        case unavailable
        /// The connection is closed without an answer.
        case dropped
    }

    /// Answers a verifyReceipt call to `endpoint` with `body`, after the latency.
    public func verifyReceipt(at endpoint: VerifyReceiptEndpoint, body: Data) async -> Answer {
        counts.callStarted()
        let behaviour = behaviour
        switch behaviour.outage(at: Date()) {
        case .unavailable:
            counts.callEnded(answer: "503", receipt: nil, at: endpoint.rawValue)
            return .unavailable
        case .drop:
            counts.callEnded(answer: "dropped", receipt: nil, at: endpoint.rawValue)
            return .dropped
        case .none:
            break
        }
        let latency = Int.random(in: behaviour.latencyMs)
        if latency > 0 {
            // Sleeping holds no thread: thousands of slow calls cost only their tasks.
            try? await Task.sleep(for: .milliseconds(latency))
        }
        let (response, receipt) = answer(at: endpoint, body: body)
        counts.callEnded(answer: String(response.status.code), receipt: receipt, at: endpoint.rawValue)
        return .answered(response)
    }

    /// The status checks, without latency or outage: the answer, and the receipt's id when it was one of ours.
    func answer(at endpoint: VerifyReceiptEndpoint, body: Data) -> (VerifyReceiptResponse, UUID?) {
        guard let request = try? JSONDecoder().decode(VerifyReceiptRequest.self, from: body) else {
            let isObject = (try? JSONSerialization.jsonObject(with: body)) is [String: Any]
            return (VerifyReceiptResponse(status: isObject ? .malformedReceiptData : .unreadableRequest), nil)
        }
        let receipt: StandInReceipt
        switch seal.open(request.receiptData.base64) {
        case .failure(.malformed): return (VerifyReceiptResponse(status: .malformedReceiptData), nil)
        case .failure(.notAuthentic): return (VerifyReceiptResponse(status: .notAuthentic), nil)
        case .success(let opened): receipt = opened
        }
        let environment = endpoint.environment.rawValue
        switch (receipt.environment, endpoint) {
        case (.sandbox, .production): return (VerifyReceiptResponse(status: .sandboxReceipt), receipt.id)
        case (.production, .sandbox): return (VerifyReceiptResponse(status: .productionReceipt), receipt.id)
        default: break
        }
        let expected = sharedSecrets.withLock { $0[receipt.bundleId] }
        if let expected, request.password.map({ SHA256.hash(data: Data($0.text.utf8)) }) != expected {
            return (VerifyReceiptResponse(status: .wrongSharedSecret, environment: environment), receipt.id)
        }
        let earlier = counts.claimAnswer(of: receipt.id)
        if let forced = receipt.forcedStatus, earlier < (receipt.forcedStatusCalls ?? .max) {
            return (VerifyReceiptResponse(status: VerifyReceiptStatus(forced), environment: environment,
                                          isRetryable: receipt.isRetryable), receipt.id)
        }
        return (verified(receipt, request: request, at: endpoint), receipt.id)
    }

    /// Status 0 with the receipt, as Apple writes it.
    func verified(_ receipt: StandInReceipt, request: VerifyReceiptRequest,
                  at endpoint: VerifyReceiptEndpoint) -> VerifyReceiptResponse {
        let sandbox = endpoint == .sandbox
        var response = VerifyReceiptResponse(
            status: .valid,
            environment: endpoint.environment.rawValue,
            receipt: .init(bundleId: receipt.bundleId, applicationVersion: "1", originalApplicationVersion: "1.0",
                           receiptType: sandbox ? "ProductionSandbox" : "Production", creationDate: receipt.issuedAt,
                           appItemId: sandbox ? "0" : Self.appItemId(of: receipt.bundleId),
                           inApp: receipt.transactions))
        guard receipt.hasSubscriptions else { return response }
        var latest = receipt.transactions
        if request.excludeOldTransactions == true {
            // Only the newest transaction of each subscription (and every other purchase).
            var newest: [String: ReceiptTransaction] = [:]
            for transaction in latest where transaction.expiresDate != nil {
                if let seen = newest[transaction.originalTransactionId],
                   (seen.purchaseDate ?? .distantPast) >= (transaction.purchaseDate ?? .distantPast) { continue }
                newest[transaction.originalTransactionId] = transaction
            }
            latest = latest.filter { $0.expiresDate == nil || newest[$0.originalTransactionId] == $0 }
        }
        response.latestReceiptInfo = latest
        response.latestReceipt = request.receiptData.base64
        var renewals: [String: VerifyReceiptResponse.PendingRenewal] = [:]
        for transaction in receipt.transactions where transaction.expiresDate != nil {
            renewals[transaction.originalTransactionId] = .init(
                originalTransactionId: transaction.originalTransactionId, productId: transaction.productId,
                autoRenewProductId: transaction.productId, autoRenewStatus: true, isInBillingRetryPeriod: false)
        }
        response.pendingRenewalInfo = renewals.keys.sorted().compactMap { renewals[$0] }
        return response
    }

    /// A stable, made-up Apple ID for an app in production.
    static func appItemId(of bundleId: String) -> String {
        let digest = SHA256.hash(data: Data(bundleId.utf8))
        let number = digest.prefix(4).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return String(1_000_000_000 + number % 1_000_000_000)
    }
}

/// A receipt the stand-in issued: the answer of `POST /standin/receipts`.
public struct IssuedReceipt: Sendable, Hashable, Codable {
    /// The receipt-data to send to verifyReceipt (base64).
    public var receipt: String
    /// Its id in the stand-in's counts.
    public var id: UUID
    /// The app.
    public var bundleId: String
    /// `Production` or `Sandbox`.
    public var environment: String
    /// Its transactions, as verifyReceipt will show them (Apple's field names).
    public var transactions: [ReceiptTransaction]
}
