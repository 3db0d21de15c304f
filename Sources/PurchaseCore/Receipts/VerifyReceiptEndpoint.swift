/// Which of Apple's two verifyReceipt addresses a call goes to. Each verifies only its own environment's
/// receipts and names the other in its answer (21007, 21008).
public enum VerifyReceiptEndpoint: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    /// `https://buy.itunes.apple.com/verifyReceipt`: production receipts. Asked first.
    case production
    /// `https://sandbox.itunes.apple.com/verifyReceipt`: sandbox receipts (development, TestFlight, App Review).
    case sandbox

    /// The environment of the receipts this endpoint verifies.
    public var environment: AppStoreEnvironment {
        switch self {
        case .production: .production
        case .sandbox: .sandbox
        }
    }

    public var description: String { rawValue }
}
