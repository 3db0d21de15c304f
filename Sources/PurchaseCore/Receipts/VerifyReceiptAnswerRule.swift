import Foundation

/// DESIGN.md's status table applied to one app's receipt: from each exchange with an endpoint, the next step of
/// the attempt. Production is asked first; 21007 sends the attempt to the sandbox and 21008 back to production,
/// each endpoint at most once per attempt.
public struct VerifyReceiptAnswerRule: Sendable, Hashable {
    /// The app whose receipt this is: a verified receipt's `bundle_id` must equal it.
    public let bundleId: String

    public init(bundleId: String) {
        self.bundleId = bundleId
    }

    /// The endpoint an attempt asks first.
    public static let firstEndpoint = VerifyReceiptEndpoint.production

    /// The step after `exchange` with `endpoint`, when `asked` holds the endpoints this attempt has asked so far
    /// (`endpoint` included).
    public func step(after exchange: VerifyReceiptExchange, from endpoint: VerifyReceiptEndpoint,
                     asked: Set<VerifyReceiptEndpoint>) -> VerifyReceiptStep {
        switch exchange {
        case .timedOut: return .finished(.retry(.timedOut))
        case .connectionFailed(let detail): return .finished(.retry(.connectionFailed(detail)))
        case .answerTooLarge(let limit): return .finished(.retry(.answerTooLarge(limit: limit)))
        case .answered(let httpStatus, let body):
            guard (200...299).contains(httpStatus) else { return .finished(.retry(.httpStatus(httpStatus))) }
            guard let response = try? VerifyReceiptResponse.decode(body) else {
                return .finished(.retry(.unreadableAnswer))
            }
            return step(after: response, from: endpoint, asked: asked)
        }
    }

    /// The step after a readable answer from `endpoint`.
    public func step(after response: VerifyReceiptResponse, from endpoint: VerifyReceiptEndpoint,
                     asked: Set<VerifyReceiptEndpoint>) -> VerifyReceiptStep {
        let status = response.status
        switch status.disposition {
        case .valid:
            return .finished(verified(response, from: endpoint))
        case .askSandbox:
            return asked.contains(.sandbox) ? .finished(.retry(.environmentsDisagree)) : .ask(.sandbox)
        case .askProduction:
            return asked.contains(.production) ? .finished(.retry(.environmentsDisagree)) : .ask(.production)
        case _ where response.isRetryable == true:
            return .finished(.retry(.appleStatus(status)))
        case .invalid:
            return .finished(.invalid(.appleStatus(status)))
        case .malformed:
            return .finished(.retry(.malformedReceiptData))
        case .temporary:
            return .finished(.retry(.appleStatus(status)))
        }
    }

    /// A valid answer: the app's receipt with its transactions, or a receipt of another app.
    func verified(_ response: VerifyReceiptResponse, from endpoint: VerifyReceiptEndpoint) -> ReceiptOutcome {
        guard let found = response.receipt?.bundleId, found == bundleId else {
            return .invalid(.otherApp(expected: bundleId, found: response.receipt?.bundleId))
        }
        var problems: [String] = []
        if response.skippedTransactions > 0 {
            problems.append("\(response.skippedTransactions) transaction(s) in the App Store's answer had no "
                + "transaction_id or product_id and were left out.")
        }
        if let named = response.environment, named != endpoint.environment.rawValue {
            problems.append("The \(endpoint) endpoint verified the receipt but named its environment \(named).")
        }
        return .verified(VerifiedReceipt(
            environment: endpoint.environment,
            bundleId: found,
            status: response.status,
            transactions: Self.transactions(of: response),
            pendingRenewals: response.pendingRenewalInfo ?? [],
            latestReceipt: response.latestReceipt.map(ReceiptData.init(base64:)),
            problems: problems))
    }

    /// `receipt.in_app` and `latest_receipt_info`, each transaction once, in the order first seen.
    public static func transactions(of response: VerifyReceiptResponse) -> [ReceiptTransaction] {
        var order: [String] = []
        var byId: [String: ReceiptTransaction] = [:]
        for transaction in (response.receipt?.inApp ?? []) + (response.latestReceiptInfo ?? []) {
            if let seen = byId[transaction.transactionId] {
                byId[transaction.transactionId] = seen.merged(with: transaction)
            } else {
                order.append(transaction.transactionId)
                byId[transaction.transactionId] = transaction
            }
        }
        return order.compactMap { byId[$0] }
    }
}
