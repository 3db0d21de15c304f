/// A webhook endpoint's URL, read strictly: `https://host[:port][/path][?query]` (or `http` where the operator
/// allows it for loopback), the host a DNS name or an IP literal, no user name or password, no fragment.
///
/// Strict so that what the service judges is what the HTTP client connects to: a lenient parser and a client
/// that disagree about the host of `https://a@b:c@d/` or `https://0x7f.1/` are how address checks are got round.
public struct WebhookURL: Sendable, Hashable, CustomStringConvertible {
    public enum Scheme: String, Sendable, Hashable {
        case http, https
    }

    public static let maximumLength = 2_048

    public let scheme: Scheme
    /// The host, lowercased: a DNS name, or an address as written (IPv6 without its brackets).
    public let host: String
    /// The host's address when it is an IP literal (any spelling a resolver accepts).
    public let literalAddress: IPAddress?
    public let port: Int
    /// The path and query, at least `/`.
    public let target: String

    /// The URL as given back to callers and used to deliver: `scheme://host[:port]target`.
    public var description: String {
        let hostText = host.contains(":") ? "[\(host)]" : host
        let defaultPort = scheme == .https ? 443 : 80
        return "\(scheme.rawValue)://\(hostText)\(port == defaultPort ? "" : ":\(port)")\(target)"
    }

    /// Where the endpoint is, without path or query (which may hold a receiver's token): for history and logs.
    public var origin: String {
        let hostText = host.contains(":") ? "[\(host)]" : host
        let defaultPort = scheme == .https ? 443 : 80
        return "\(scheme.rawValue)://\(hostText)\(port == defaultPort ? "" : ":\(port)")"
    }

    /// Reads `text`, refusing (naming `field`) anything but the form above.
    public init(_ text: String, field: String = "url") throws(CatalogError) {
        func refuse(_ rule: String, _ message: String) -> CatalogError {
            .validationFailed([FieldProblem(field: field, rule: rule, message: message)])
        }
        guard text.utf8.count <= Self.maximumLength else {
            throw refuse("maxLength", "must be at most \(Self.maximumLength) bytes")
        }
        guard text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
            throw refuse("format", "must be ASCII without spaces or control characters (encode the rest)")
        }
        let lower = text.lowercased()
        let scheme: Scheme
        let rest: Substring
        if lower.hasPrefix("https://") {
            scheme = .https
            rest = text.dropFirst(8)
        } else if lower.hasPrefix("http://") {
            scheme = .http
            rest = text.dropFirst(7)
        } else {
            throw refuse("scheme", "must be an https URL")
        }
        guard !rest.contains("#") else { throw refuse("format", "must not have a fragment") }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        var target = String(rest[authorityEnd...])
        if target.hasPrefix("?") { target = "/" + target }
        if target.isEmpty { target = "/" }
        guard !authority.contains("@") else {
            throw refuse("format", "must not carry a user name or password")
        }
        guard !target.contains("\\") else { throw refuse("format", "must not hold a backslash") }

        var hostText: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw refuse("host", "has an unclosed [") }
            hostText = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw refuse("host", "has text after ]") }
                portText = after.dropFirst()
            }
            guard let address = IPAddress(String(hostText)), case .v6 = address else {
                throw refuse("host", "is not an IPv6 address between [ and ]")
            }
        } else {
            let parts = authority.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count <= 2 else { throw refuse("host", "is not a host name or address") }
            hostText = parts[0]
            portText = parts.count == 2 ? parts[1] : nil
        }
        let host = hostText.lowercased()
        guard !host.isEmpty else { throw refuse("host", "is missing") }

        var port = scheme == .https ? 443 : 80
        if let portText {
            guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy({ $0.isASCII && $0.isNumber }),
                  let number = Int(portText), (1...65_535).contains(number)
            else { throw refuse("port", "must be a number from 1 to 65535") }
            port = number
        }

        var literal: IPAddress?
        if host.contains(":") {
            literal = IPAddress(host)
        } else if IPAddress.looksNumeric(host) {
            guard let address = IPAddress(host), case .v4 = address else {
                throw refuse("host", "looks like an IPv4 address but is not one")
            }
            literal = address
        } else {
            let labels = host.split(separator: ".", omittingEmptySubsequences: false)
            let valid = host.utf8.count <= 253 && labels.allSatisfy { label in
                (1...63).contains(label.count) && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
                    && label.first != "-" && label.last != "-"
            }
            guard valid else { throw refuse("host", "is not a valid host name") }
        }
        self.scheme = scheme
        self.host = literal.map { address in
            // An address is kept in its plain form, whatever spelling it came in.
            if case .v6 = address { return host }
            return address.description
        } ?? host
        self.literalAddress = literal
        self.port = port
        self.target = target
    }
}
