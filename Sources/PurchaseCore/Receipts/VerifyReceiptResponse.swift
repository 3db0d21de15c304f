import Foundation

/// The body of a verifyReceipt answer, as Apple documents it (`responseBody`).
///
/// Read leniently (see `LenientFields.swift`): only `status` is required; an element of `in_app` or
/// `latest_receipt_info` that cannot be read is skipped and counted in ``skippedTransactions``, so that the
/// rule can name it as a problem without losing the others. Written as Apple writes it (the stand-in answers
/// with this type).
public struct VerifyReceiptResponse: Sendable, Hashable, Codable {
    /// `status`: 0, or a code of the status table.
    public var status: VerifyReceiptStatus
    /// `environment`: `Production` or `Sandbox`, when Apple says.
    public var environment: String?
    /// `is-retryable`: Apple's hint that an error (21100–21199) is temporary.
    public var isRetryable: Bool?
    /// `receipt`: the decoded receipt that was sent.
    public var receipt: Receipt?
    /// `latest_receipt_info`: every transaction, latest renewals included (receipts with auto-renewable
    /// subscriptions).
    public var latestReceiptInfo: [ReceiptTransaction]?
    /// `latest_receipt`: the latest base64 receipt (receipts with auto-renewable subscriptions).
    public var latestReceipt: String?
    /// `pending_renewal_info`: the next renewal of each auto-renewable subscription.
    public var pendingRenewalInfo: [PendingRenewal]?
    /// Elements of `in_app` and `latest_receipt_info` that could not be read (no `transaction_id` or `product_id`).
    public var skippedTransactions: Int

    public init(
        status: VerifyReceiptStatus, environment: String? = nil, isRetryable: Bool? = nil, receipt: Receipt? = nil,
        latestReceiptInfo: [ReceiptTransaction]? = nil, latestReceipt: String? = nil,
        pendingRenewalInfo: [PendingRenewal]? = nil, skippedTransactions: Int = 0
    ) {
        self.status = status
        self.environment = environment
        self.isRetryable = isRetryable
        self.receipt = receipt
        self.latestReceiptInfo = latestReceiptInfo
        self.latestReceipt = latestReceipt
        self.pendingRenewalInfo = pendingRenewalInfo
        self.skippedTransactions = skippedTransactions
    }

    /// `receipt`: the receipt Apple decoded.
    public struct Receipt: Sendable, Hashable, Codable {
        /// `bundle_id`: the app the receipt belongs to.
        public var bundleId: String?
        /// `application_version`.
        public var applicationVersion: String?
        /// `original_application_version`: the version first bought or downloaded.
        public var originalApplicationVersion: String?
        /// `receipt_type`: `Production`, `ProductionVPP`, `ProductionSandbox`, `ProductionVPPSandbox`.
        public var receiptType: String?
        /// `receipt_creation_date_ms`.
        public var creationDate: Date?
        /// `app_item_id`: the app's Apple ID (0 in the sandbox).
        public var appItemId: String?
        /// `in_app`: the receipt's in-app purchase transactions.
        public var inApp: [ReceiptTransaction]
        /// Elements of `in_app` that could not be read.
        public var skippedTransactions: Int

        public init(
            bundleId: String?, applicationVersion: String? = nil, originalApplicationVersion: String? = nil,
            receiptType: String? = nil, creationDate: Date? = nil, appItemId: String? = nil,
            inApp: [ReceiptTransaction] = [], skippedTransactions: Int = 0
        ) {
            self.bundleId = bundleId
            self.applicationVersion = applicationVersion
            self.originalApplicationVersion = originalApplicationVersion
            self.receiptType = receiptType
            self.creationDate = creationDate
            self.appItemId = appItemId
            self.inApp = inApp
            self.skippedTransactions = skippedTransactions
        }

        enum CodingKeys: String, CodingKey {
            case bundleId = "bundle_id"
            case applicationVersion = "application_version"
            case originalApplicationVersion = "original_application_version"
            case receiptType = "receipt_type"
            case creationDate = "receipt_creation_date_ms"
            case appItemId = "app_item_id"
            case inApp = "in_app"
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let inApp = container.lenientArray(.inApp, of: ReceiptTransaction.self)
            self.init(
                bundleId: container.lenientString(.bundleId),
                applicationVersion: container.lenientString(.applicationVersion),
                originalApplicationVersion: container.lenientString(.originalApplicationVersion),
                receiptType: container.lenientString(.receiptType),
                creationDate: container.lenientMilliseconds(.creationDate),
                appItemId: container.lenientString(.appItemId),
                inApp: inApp?.elements ?? [],
                skippedTransactions: inApp?.skipped ?? 0)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(bundleId, forKey: .bundleId)
            try container.encodeIfPresent(applicationVersion, forKey: .applicationVersion)
            try container.encodeIfPresent(originalApplicationVersion, forKey: .originalApplicationVersion)
            try container.encodeIfPresent(receiptType, forKey: .receiptType)
            try container.encodeMilliseconds(creationDate, forKey: .creationDate)
            try container.encodeIfPresent(appItemId, forKey: .appItemId)
            try container.encode(inApp, forKey: .inApp)
        }
    }

    /// An element of `pending_renewal_info`: what happens at a subscription's next renewal.
    public struct PendingRenewal: Sendable, Hashable, Codable {
        /// `original_transaction_id` of the subscription.
        public var originalTransactionId: String?
        /// `product_id`: the subscription now.
        public var productId: String?
        /// `auto_renew_product_id`: the subscription it renews into.
        public var autoRenewProductId: String?
        /// `auto_renew_status`: whether it will renew (`"1"`).
        public var autoRenewStatus: Bool?
        /// `expiration_intent`: why it expired (`"1"` cancelled, `"2"` billing error, ...), as Apple writes it.
        public var expirationIntent: String?
        /// `is_in_billing_retry_period`.
        public var isInBillingRetryPeriod: Bool?
        /// `grace_period_expires_date_ms`.
        public var gracePeriodExpiresDate: Date?

        public init(
            originalTransactionId: String?, productId: String?, autoRenewProductId: String? = nil,
            autoRenewStatus: Bool? = nil, expirationIntent: String? = nil, isInBillingRetryPeriod: Bool? = nil,
            gracePeriodExpiresDate: Date? = nil
        ) {
            self.originalTransactionId = originalTransactionId
            self.productId = productId
            self.autoRenewProductId = autoRenewProductId
            self.autoRenewStatus = autoRenewStatus
            self.expirationIntent = expirationIntent
            self.isInBillingRetryPeriod = isInBillingRetryPeriod
            self.gracePeriodExpiresDate = gracePeriodExpiresDate
        }

        enum CodingKeys: String, CodingKey {
            case originalTransactionId = "original_transaction_id"
            case productId = "product_id"
            case autoRenewProductId = "auto_renew_product_id"
            case autoRenewStatus = "auto_renew_status"
            case expirationIntent = "expiration_intent"
            case isInBillingRetryPeriod = "is_in_billing_retry_period"
            case gracePeriodExpiresDate = "grace_period_expires_date_ms"
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.init(
                originalTransactionId: container.lenientString(.originalTransactionId),
                productId: container.lenientString(.productId),
                autoRenewProductId: container.lenientString(.autoRenewProductId),
                autoRenewStatus: container.lenientFlag(.autoRenewStatus),
                expirationIntent: container.lenientString(.expirationIntent),
                isInBillingRetryPeriod: container.lenientFlag(.isInBillingRetryPeriod),
                gracePeriodExpiresDate: container.lenientMilliseconds(.gracePeriodExpiresDate))
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(originalTransactionId, forKey: .originalTransactionId)
            try container.encodeIfPresent(productId, forKey: .productId)
            try container.encodeIfPresent(autoRenewProductId, forKey: .autoRenewProductId)
            try container.encodeIfPresent(autoRenewStatus.map { $0 ? "1" : "0" }, forKey: .autoRenewStatus)
            try container.encodeIfPresent(expirationIntent, forKey: .expirationIntent)
            try container.encodeIfPresent(isInBillingRetryPeriod.map { $0 ? "1" : "0" },
                                          forKey: .isInBillingRetryPeriod)
            try container.encodeMilliseconds(gracePeriodExpiresDate, forKey: .gracePeriodExpiresDate)
        }
    }

    enum CodingKeys: String, CodingKey {
        case status
        case environment
        case isRetryable = "is-retryable"
        case receipt
        case latestReceiptInfo = "latest_receipt_info"
        case latestReceipt = "latest_receipt"
        case pendingRenewalInfo = "pending_renewal_info"
    }

    /// Reads an answer; throws only when it is not a JSON object with an integer `status`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard let code = container.lenientInteger(.status), let status = Int(exactly: code) else {
            throw DecodingError.keyNotFound(CodingKeys.status, .init(
                codingPath: [], debugDescription: "the answer has no integer status"))
        }
        let latest = container.lenientArray(.latestReceiptInfo, of: ReceiptTransaction.self)
        let receipt = try? container.decodeIfPresent(Receipt.self, forKey: .receipt)
        self.init(
            status: VerifyReceiptStatus(status),
            environment: container.lenientString(.environment),
            isRetryable: container.lenientFlag(.isRetryable),
            receipt: receipt,
            latestReceiptInfo: latest?.elements,
            latestReceipt: container.lenientString(.latestReceipt),
            pendingRenewalInfo: container.lenientArray(.pendingRenewalInfo, of: PendingRenewal.self)?.elements,
            skippedTransactions: (latest?.skipped ?? 0) + (receipt?.skippedTransactions ?? 0))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(status, forKey: .status)
        try container.encodeIfPresent(environment, forKey: .environment)
        try container.encodeIfPresent(isRetryable, forKey: .isRetryable)
        try container.encodeIfPresent(receipt, forKey: .receipt)
        try container.encodeIfPresent(latestReceiptInfo, forKey: .latestReceiptInfo)
        try container.encodeIfPresent(latestReceipt, forKey: .latestReceipt)
        try container.encodeIfPresent(pendingRenewalInfo, forKey: .pendingRenewalInfo)
    }

    /// Reads an answer's bytes.
    public static func decode(_ body: Data) throws -> VerifyReceiptResponse {
        try JSONDecoder().decode(VerifyReceiptResponse.self, from: body)
    }
}
