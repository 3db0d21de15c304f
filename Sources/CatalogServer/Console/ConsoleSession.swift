import CatalogCore
import Crypto
import Foundation
import HTTPTypes
import Hummingbird

/// A signed-in browser, as the console's pages see it: the API key it acts as and the token its forms carry.
struct ConsoleSession: Sendable {
    let key: APIKey
    /// The session's CSRF token: every form of the session's pages carries it, and every POST must.
    let csrfToken: String

    /// The session a request carries, set by ``ConsoleSessionMiddleware``.
    @TaskLocal static var current: ConsoleSession?

    /// The token of a session's CSRF secret (URL-safe base64, the form field's value).
    static func csrfToken(of secret: [UInt8]) -> String { ConsoleRandom.text(secret) }

    /// Whether `sent` is the session's token, compared in constant time.
    func accepts(csrfToken sent: String?) -> Bool {
        guard let sent else { return false }
        let expected = Array(csrfToken.utf8)
        let given = Array(sent.utf8)
        guard expected.count == given.count else { return false }
        return zip(expected, given).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

/// The session cookie: a random id the browser holds (HttpOnly, SameSite=Strict, Path=/console, Secure over
/// https), of which the database holds only the SHA-256.
enum ConsoleCookie {
    static let name = "iap_console_session"
    static let path = "/console"

    /// A new session id: 32 random bytes, URL-safe base64.
    static func newID() -> String { ConsoleRandom.text(ConsoleRandom.bytes(32)) }

    /// What the database stores of `id`.
    static func hash(_ id: String) -> [UInt8] { Array(SHA256.hash(data: Data(id.utf8))) }

    /// `Set-Cookie` for a session that lasts `lifetime`.
    static func setting(_ id: String, lifetime: Duration, secure: Bool) -> String {
        "\(name)=\(id); Path=\(path); Max-Age=\(lifetime.components.seconds); HttpOnly; SameSite=Strict"
            + (secure ? "; Secure" : "")
    }

    /// `Set-Cookie` that makes the browser forget the session.
    static func clearing(secure: Bool) -> String {
        "\(name)=; Path=\(path); Max-Age=0; HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }

    /// The session id in `request`'s `Cookie` headers, if it has a plausible one.
    static func id(in request: Request) -> String? {
        for header in request.headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name else { continue }
                let value = parts[1].trimmingCharacters(in: .whitespaces)
                if (20...100).contains(value.count), value.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) {
                    return value
                }
            }
        }
        return nil
    }
}

/// Random bytes from the system's generator, and their URL-safe base64 text.
enum ConsoleRandom {
    static func bytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    static func text(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
