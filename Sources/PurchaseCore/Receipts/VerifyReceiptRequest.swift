/// The body of a verifyReceipt request, as Apple documents it (`requestBody`): the receipt, the app's shared
/// secret, and whether to leave out old renewals of auto-renewable subscriptions.
public struct VerifyReceiptRequest: Sendable, Hashable, Codable, CustomStringConvertible {
    /// `receipt-data`: the base64 app receipt.
    public var receiptData: ReceiptData
    /// `password`: the app's shared secret; Apple needs it for receipts with auto-renewable subscriptions.
    public var password: AppStoreSharedSecret?
    /// `exclude-old-transactions`: only the latest renewal of each subscription in `latest_receipt_info`.
    public var excludeOldTransactions: Bool?

    public init(receiptData: ReceiptData, password: AppStoreSharedSecret?, excludeOldTransactions: Bool? = nil) {
        self.receiptData = receiptData
        self.password = password
        self.excludeOldTransactions = excludeOldTransactions
    }

    enum CodingKeys: String, CodingKey {
        case receiptData = "receipt-data"
        case password
        case excludeOldTransactions = "exclude-old-transactions"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        receiptData = ReceiptData(base64: try container.decode(String.self, forKey: .receiptData))
        password = try container.decodeIfPresent(String.self, forKey: .password).map(AppStoreSharedSecret.init)
        excludeOldTransactions = container.lenientFlag(.excludeOldTransactions)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(receiptData.base64, forKey: .receiptData)
        try container.encodeIfPresent(password?.text, forKey: .password)
        try container.encodeIfPresent(excludeOldTransactions, forKey: .excludeOldTransactions)
    }

    public var description: String {
        "VerifyReceiptRequest(\(receiptData), password: \(password == nil ? "none" : "<redacted>"))"
    }
}
