/// The App Store environment a purchase was made in. Every record keeps it, so that finance never counts a
/// sandbox or Xcode purchase with production.
public enum AppStoreEnvironment: String, Sendable, Hashable, CaseIterable, Codable {
    case production = "Production"
    case sandbox = "Sandbox"
    /// Local StoreKit testing in Xcode: signed by Xcode's own certificate, not chain-verifiable.
    case xcode = "Xcode"
    /// StoreKit's local testing environment as Apple's server library names it.
    case localTesting = "LocalTesting"
}
