/// A setting of the App Store client that cannot be used: which one, and the rule it breaks.
public struct AppStoreConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The environment variable (or flag) at fault.
    public let name: String
    /// What is wrong, in one sentence.
    public let message: String

    public init(name: String, _ message: String) {
        self.name = name
        self.message = message
    }

    public var description: String { "\(name) \(message)" }
}
