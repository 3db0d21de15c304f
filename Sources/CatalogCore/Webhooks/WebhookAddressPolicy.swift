/// Which addresses a webhook may be delivered to: public unicast addresses only, so that an endpoint cannot
/// make the server reach what only it can reach (its own loopback, the private network, a cloud's metadata
/// service). The operator may allow plain `http` to loopback (tests, a receiver on the same machine) and a
/// list of host names that may resolve to private addresses (an internal chat or CI server); docs/operations.md.
///
/// Judged twice: when an endpoint is created, and before every delivery, on the addresses the name resolves to
/// then, and the delivery connects to the address judged (a name that resolves elsewhere later, DNS
/// rebinding, gains nothing).
public struct WebhookAddressPolicy: Sendable, Hashable {
    /// Whether `http` URLs whose host is loopback (and only loopback) are allowed; loopback is refused otherwise.
    public var allowsLoopbackHTTP: Bool
    /// Host names (lowercased, exact) that may resolve to private addresses (RFC 1918, CGNAT, unique-local).
    public var allowedHosts: Set<String>

    public init(allowsLoopbackHTTP: Bool = false, allowedHosts: Set<String> = []) {
        self.allowsLoopbackHTTP = allowsLoopbackHTTP
        self.allowedHosts = Set(allowedHosts.map { $0.lowercased() })
    }

    /// A range of addresses that is never a webhook's, and why.
    public struct Range: Sendable, Hashable {
        public let name: String
        let prefix: [UInt8]
        let bits: Int
        /// Whether a host of ``WebhookAddressPolicy/allowedHosts`` may resolve into it.
        let privateNetwork: Bool
        let loopback: Bool

        func contains(_ bytes: [UInt8]) -> Bool {
            guard bytes.count == prefix.count else { return false }
            for bit in 0..<bits where (bytes[bit / 8] >> (7 - bit % 8)) & 1 != (prefix[bit / 8] >> (7 - bit % 8)) & 1 {
                return false
            }
            return true
        }
    }

    private static func v4(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8, _ bits: Int, _ name: String,
                           private privateNetwork: Bool = false, loopback: Bool = false) -> Range {
        Range(name: name, prefix: [a, b, c, d], bits: bits, privateNetwork: privateNetwork, loopback: loopback)
    }

    private static func v6(_ groups: [UInt16], _ bits: Int, _ name: String, private privateNetwork: Bool = false,
                           loopback: Bool = false) -> Range {
        let padded = groups + Array(repeating: 0, count: 8 - groups.count)
        return Range(name: name, prefix: padded.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }, bits: bits,
                     privateNetwork: privateNetwork, loopback: loopback)
    }

    /// Every refused range (IANA's special-purpose registries, less the few that are globally reachable),
    /// most specific first so that a refusal names the narrowest.
    public static let refusedRanges: [Range] = [
        v4(169, 254, 169, 254, 32, "cloud metadata service"),
        v4(0, 0, 0, 0, 8, "\"this network\" (0.0.0.0/8)"),
        v4(10, 0, 0, 0, 8, "private network (10.0.0.0/8)", private: true),
        v4(100, 64, 0, 0, 10, "carrier-grade NAT (100.64.0.0/10)", private: true),
        v4(127, 0, 0, 0, 8, "loopback (127.0.0.0/8)", loopback: true),
        v4(169, 254, 0, 0, 16, "link-local (169.254.0.0/16)"),
        v4(172, 16, 0, 0, 12, "private network (172.16.0.0/12)", private: true),
        v4(192, 0, 0, 0, 24, "IETF protocol assignments (192.0.0.0/24)"),
        v4(192, 0, 2, 0, 24, "documentation (192.0.2.0/24)"),
        v4(192, 88, 99, 0, 24, "6to4 relay anycast (192.88.99.0/24)"),
        v4(192, 168, 0, 0, 16, "private network (192.168.0.0/16)", private: true),
        v4(198, 18, 0, 0, 15, "benchmarking (198.18.0.0/15)"),
        v4(198, 51, 100, 0, 24, "documentation (198.51.100.0/24)"),
        v4(203, 0, 113, 0, 24, "documentation (203.0.113.0/24)"),
        v4(224, 0, 0, 0, 4, "multicast (224.0.0.0/4)"),
        v4(240, 0, 0, 0, 4, "reserved (240.0.0.0/4, broadcast)"),
        v6([0xFD00, 0x0EC2, 0, 0, 0, 0, 0, 0x0254], 128, "cloud metadata service"),
        v6([], 128, "unspecified (::)"),
        v6([0, 0, 0, 0, 0, 0, 0, 1], 128, "loopback (::1)", loopback: true),
        v6([0x0064, 0xFF9B, 0x0001], 48, "local-use NAT64 (64:ff9b:1::/48)"),
        v6([0x0100], 64, "discard-only (100::/64)"),
        v6([0x2001, 0x0DB8], 32, "documentation (2001:db8::/32)"),
        v6([0x2001], 23, "IETF protocol assignments (2001::/23)"),
        v6([0xFC00], 7, "unique-local (fc00::/7)", private: true),
        v6([0xFE80], 10, "link-local (fe80::/10)"),
        v6([0xFEC0], 10, "site-local (fec0::/10)"),
        v6([0xFF00], 8, "multicast (ff00::/8)"),
    ]

    /// Why `address` may not receive a webhook of `host`, or `nil` when it may. An IPv6 address that embeds an
    /// IPv4 one (``IPAddress/embeddedV4``) is judged by the embedded address too.
    public func refusal(of address: IPAddress, host: String) -> String? {
        var candidates: [[UInt8]] = []
        switch address {
        case .v4(let value): candidates.append(Self.bytes(value))
        case .v6(let bytes):
            candidates.append(bytes)
            candidates += address.embeddedV4.map(Self.bytes)
        }
        for bytes in candidates {
            guard let range = Self.refusedRanges.first(where: { $0.contains(bytes) }) else { continue }
            if range.loopback && allowsLoopbackHTTP { continue }
            if range.privateNetwork && allowedHosts.contains(host.lowercased()) { continue }
            return "\(address) is \(range.name)"
        }
        return nil
    }

    /// Why a delivery to `url` may not go to `addresses` (every address the host resolves to must be allowed,
    /// and at least one there must be), or `nil` when it may.
    public func refusal(of addresses: [IPAddress], for url: WebhookURL) -> String? {
        guard !addresses.isEmpty else { return "\(url.host) resolves to no address" }
        for address in addresses {
            if let refusal = refusal(of: address, host: url.host) { return refusal }
        }
        if url.scheme == .http, !addresses.allSatisfy(Self.isLoopback) {
            return "http is allowed to loopback addresses only; use https"
        }
        return nil
    }

    /// Whether `address` is a loopback address (127.0.0.0/8, ::1, or an IPv6 form of 127.0.0.0/8).
    public static func isLoopback(_ address: IPAddress) -> Bool {
        switch address {
        case .v4(let value): value >> 24 == 127
        case .v6(let bytes):
            bytes == Array(repeating: 0, count: 15) + [1] || address.embeddedV4.contains { $0 >> 24 == 127 }
        }
    }

    private static func bytes(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }
}
