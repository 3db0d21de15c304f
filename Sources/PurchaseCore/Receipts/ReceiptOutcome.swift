/// What verifying one receipt came to, across the hops between production and the sandbox: the answer the
/// service records for one attempt. ``ReceiptSubmissionRule`` turns it into the submission's next status.
public enum ReceiptOutcome: Sendable, Hashable {
    /// Apple says the receipt is valid, and it is the app's.
    case verified(VerifiedReceipt)
    /// The receipt will never verify (DESIGN.md's "invalid, not retried").
    case invalid(ReceiptRefusal)
    /// No answer that decides: ask again later.
    case retry(ReceiptRetryReason)
}

/// A receipt Apple verified: its environment and its transactions.
public struct VerifiedReceipt: Sendable, Hashable {
    /// The environment whose endpoint verified it.
    public var environment: AppStoreEnvironment
    /// `receipt.bundle_id`, equal to the app's.
    public var bundleId: String
    /// The status Apple answered (0, or 21006 for an expired iOS 6-style subscription receipt).
    public var status: VerifyReceiptStatus
    /// The transactions of `receipt.in_app` and `latest_receipt_info`, each once (by `transaction_id`), in the
    /// order first seen; where both carry one, `latest_receipt_info`'s facts are added to `in_app`'s.
    public var transactions: [ReceiptTransaction]
    /// `pending_renewal_info`: the next renewal of each auto-renewable subscription.
    public var pendingRenewals: [VerifyReceiptResponse.PendingRenewal]
    /// `latest_receipt`, when Apple sends one: the receipt to verify next time for the newest renewals.
    public var latestReceipt: ReceiptData?
    /// What was wrong in Apple's answer without stopping verification (an unreadable transaction, say), one
    /// sentence each.
    public var problems: [String]

    public init(
        environment: AppStoreEnvironment, bundleId: String, status: VerifyReceiptStatus = .valid,
        transactions: [ReceiptTransaction], pendingRenewals: [VerifyReceiptResponse.PendingRenewal] = [],
        latestReceipt: ReceiptData? = nil, problems: [String] = []
    ) {
        self.environment = environment
        self.bundleId = bundleId
        self.status = status
        self.transactions = transactions
        self.pendingRenewals = pendingRenewals
        self.latestReceipt = latestReceipt
        self.problems = problems
    }
}

/// Why a receipt is invalid: Apple's status (with its meaning), or a receipt of another app.
public enum ReceiptRefusal: Sendable, Hashable, CustomStringConvertible {
    /// Apple refused it: 21000, 21003, 21004, 21010, or 21002 once its retries are spent.
    case appleStatus(VerifyReceiptStatus)
    /// Apple verified it, but it is another app's receipt (`bundle_id`, `nil` when Apple sent none).
    case otherApp(expected: String, found: String?)

    /// The status Apple answered, when the refusal is Apple's.
    public var appleStatus: VerifyReceiptStatus? {
        if case .appleStatus(let status) = self { return status }
        return nil
    }

    public var description: String {
        switch self {
        case .appleStatus(let status): "The App Store answered \(status.code): \(status.meaning)"
        case .otherApp(let expected, let found?):
            "The receipt belongs to \(found), not to \(expected)."
        case .otherApp(let expected, nil):
            "The App Store's answer names no bundle_id, so the receipt cannot be shown to belong to \(expected)."
        }
    }
}

/// Why a verification is to be asked again.
public enum ReceiptRetryReason: Sendable, Hashable, CustomStringConvertible {
    /// Apple answered a status that is temporary (21005, 21009, 21100–21199, an undocumented code, or any code
    /// with `is-retryable: true`).
    case appleStatus(VerifyReceiptStatus)
    /// Apple answered 21002: malformed data or a temporary issue. Retried a few times, then invalid.
    case malformedReceiptData
    /// Production said "sandbox receipt" and the sandbox said "production receipt" in one attempt.
    case environmentsDisagree
    /// The endpoint answered an HTTP status other than 2xx (5xx: Apple is in trouble; others: a misconfigured
    /// address, which an operator can fix before the retries run out).
    case httpStatus(Int)
    /// No complete answer within the timeout.
    case timedOut
    /// The connection could not be made or broke (the text is the transport's, and never holds the request).
    case connectionFailed(String)
    /// A 2xx answer that is not verifyReceipt's JSON.
    case unreadableAnswer
    /// An answer larger than the client accepts (the limit, in bytes).
    case answerTooLarge(limit: Int)
    /// The client already had as many callers waiting as it allows; nothing was sent.
    case clientSaturated

    /// The status Apple answered, when there was one.
    public var appleStatus: VerifyReceiptStatus? {
        switch self {
        case .appleStatus(let status): status
        case .malformedReceiptData: .malformedReceiptData
        default: nil
        }
    }

    public var description: String {
        switch self {
        case .appleStatus(let status): "The App Store answered \(status.code): \(status.meaning)"
        case .malformedReceiptData: "The App Store answered 21002: \(VerifyReceiptStatus.malformedReceiptData.meaning)"
        case .environmentsDisagree:
            "Production called it a sandbox receipt (21007) and the sandbox called it a production receipt (21008)."
        case .httpStatus(let code): "The App Store answered HTTP \(code)."
        case .timedOut: "The App Store did not answer in time."
        case .connectionFailed(let detail): "The App Store could not be reached: \(detail)"
        case .unreadableAnswer: "The App Store's answer is not verifyReceipt's JSON."
        case .answerTooLarge(let limit): "The App Store's answer is larger than \(limit) bytes."
        case .clientSaturated: "Too many verifications were waiting in this process; none was sent."
        }
    }
}
