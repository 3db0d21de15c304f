/// What one app accepts of App Store signed data: its bundle, its environments, and whether it takes Xcode's
/// local test data. Built from the app's store settings (DESIGN.md: `environments`, `acceptXcode`,
/// `appAppleId`).
public struct SignedDataPolicy: Sendable, Hashable {
    /// The app's bundle identifier: a transaction or notification must name it.
    public var bundleId: String
    /// The chain-verified environments the app accepts, from Production and Sandbox (Xcode and LocalTesting
    /// here are ignored: `acceptsXcode` alone decides those).
    public var environments: Set<AppStoreEnvironment>
    /// Whether data from local StoreKit testing ("Xcode", "LocalTesting") is accepted. Xcode signs it with its
    /// own certificate, which chains to nothing, so anyone can make such data: a setting for development
    /// servers, and what it admits is recorded as Xcode, never counted with Production.
    public var acceptsXcode: Bool
    /// The app's identifier in the App Store; when set, a Production notification must name it (as Apple's
    /// library checks). Transactions carry no such field.
    public var appAppleId: Int64?

    /// The policy DESIGN.md gives an app by default: Production and Sandbox, no Xcode.
    public init(
        bundleId: String,
        environments: Set<AppStoreEnvironment> = [.production, .sandbox],
        acceptsXcode: Bool = false,
        appAppleId: Int64? = nil
    ) {
        self.bundleId = bundleId
        self.environments = environments
        self.acceptsXcode = acceptsXcode
        self.appAppleId = appAppleId
    }
}
