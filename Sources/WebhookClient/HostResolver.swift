import CatalogCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What a host name resolves to. The sender asks before every delivery (within ``WebhookSenderSettings/resolutionTTL``),
/// judges every address, and connects to the one it judged; tests inject their own answers.
public protocol HostResolver: Sendable {
    /// Every address `host` resolves to now; an error when it resolves to none.
    func addresses(of host: String) async throws -> [IPAddress]
}

/// A name that could not be resolved, in the resolver's words.
public struct HostResolutionFailed: Error, CustomStringConvertible {
    public let description: String

    public init(description: String) {
        self.description = description
    }
}

/// The system's resolver (`getaddrinfo`: /etc/hosts, then DNS), on NIO's thread pool, since it blocks.
public struct SystemHostResolver: HostResolver {
    public init() {}

    public func addresses(of host: String) async throws -> [IPAddress] {
        try await NIOThreadPool.singleton.runIfActive { try Self.resolve(host) }
    }

    static func resolve(_ host: String) throws -> [IPAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Darwin)
        hints.ai_socktype = SOCK_STREAM
        #else
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0 else {
            throw HostResolutionFailed(description: "\(host) does not resolve: \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var addresses: [IPAddress] = []
        var entry = list
        while let info = entry?.pointee {
            if info.ai_family == AF_INET, let socket = info.ai_addr {
                let address = socket.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr.s_addr }
                addresses.append(.v4(UInt32(bigEndian: address)))
            } else if info.ai_family == AF_INET6, let socket = info.ai_addr {
                var bytes = socket.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
                addresses.append(.v6(withUnsafeBytes(of: &bytes) { Array($0) }))
            }
            entry = info.ai_next
        }
        // getaddrinfo answers each address once per socket type it could use; one of each is enough.
        var seen = Set<IPAddress>()
        return addresses.filter { seen.insert($0).inserted }
    }
}
