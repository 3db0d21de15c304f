import CatalogTestSupport
import Foundation
import Testing

/// `scripts/postgres free-port` (the scripts' and the private clusters' ports) answers ports below the kernel's
/// ephemeral range: a port in that range can be taken by the local end of an outgoing connection between the
/// answer and the bind, which made README's walkthrough fail in CI when its stand-in could not listen.
@Suite("Free ports")
struct FreePortTests {
    @Test("free-port answers ports below the ephemeral range")
    func belowTheEphemeralRange() async throws {
        let range = try String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)
        let first = try #require(range.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) })
        for _ in 0..<20 {
            let port = try await PrivateCluster.freePort()
            #expect(port >= 1024 && port < first, "\(port) is not below the ephemeral range, which starts at \(first)")
        }
    }
}
