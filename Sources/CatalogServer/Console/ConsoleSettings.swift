/// How the console (docs/console.md) runs: how long a session lasts and whether the server may believe a proxy
/// about the scheme the browser used. `iap-server serve` reads both from the environment (docs/operations.md).
public struct ConsoleSettings: Sendable {
    /// How long a session lasts after sign-in, at most (never longer than its key).
    public var sessionLifetime: Duration = .seconds(8 * 60 * 60)
    /// Whether `X-Forwarded-Proto: https` from a reverse proxy in front of the server marks the browser's
    /// connection as https, so that the session cookie is `Secure`. Off by default: a client talking to the
    /// server directly could otherwise claim it, and the server itself speaks plain HTTP only.
    public var trustForwardedProto = false

    public init() {}

    public static let standard = ConsoleSettings()
}
