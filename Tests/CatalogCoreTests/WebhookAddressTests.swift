import CatalogCore
import Foundation
import Testing

/// Which URLs and addresses a webhook may reach (WebhookURL, IPAddress, WebhookAddressPolicy).
@Suite("Webhook URLs and addresses")
struct WebhookAddressTests {
    let strict = WebhookAddressPolicy()

    private func refusal(_ text: String, policy: WebhookAddressPolicy = WebhookAddressPolicy(), host: String = "h") -> String? {
        guard let address = IPAddress(text) else { return "unparsed" }
        return policy.refusal(of: address, host: host)
    }

    @Test("every spelling of an IPv4 address a resolver accepts is read as that address")
    func spellings() {
        for text in ["127.0.0.1", "2130706433", "0177.1", "0x7f.0.0.1", "0x7f000001", "127.1", "127.0.0.1."] {
            #expect(IPAddress(text) == .v4(0x7F00_0001), "\(text)")
        }
        #expect(IPAddress("::ffff:10.0.0.1")?.embeddedV4 == [0x0A00_0001])
        #expect(IPAddress("::1") == .v6(Array(repeating: 0, count: 15) + [1]))
        for text in ["256.0.0.1", "1.2.3.4.5", "1::2::3", "fe80::1%eth0", "example.com", ""] {
            #expect(IPAddress(text) == nil, "\(text)")
        }
    }

    @Test("private, loopback, link-local, CGNAT, metadata, multicast and unique-local addresses are refused",
          arguments: ["10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "127.0.0.1", "169.254.169.254",
                      "169.254.1.1", "100.64.0.1", "0.0.0.0", "224.0.0.1", "255.255.255.255", "::1", "::", "fc00::1",
                      "fd12:3456::1", "fe80::1", "ff02::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:169.254.169.254",
                      "64:ff9b::a00:1", "2002:a00:1::1", "fd00:ec2::254"])
    func refused(address: String) {
        #expect(refusal(address) != nil, "\(address) was allowed")
    }

    @Test("public addresses are allowed", arguments: ["93.184.216.34", "8.8.8.8", "172.32.0.1", "100.128.0.1",
                                                      "2606:4700::1111", "::ffff:93.184.216.34"])
    func allowed(address: String) {
        #expect(refusal(address) == nil)
    }

    @Test("the operator's allowances: loopback over http, and named hosts into private networks only")
    func allowances() throws {
        let loopback = WebhookAddressPolicy(allowsLoopbackHTTP: true)
        #expect(refusal("127.0.0.1", policy: loopback) == nil)
        #expect(refusal("::1", policy: loopback) == nil)
        #expect(refusal("10.0.0.1", policy: loopback) != nil)
        #expect(refusal("169.254.169.254", policy: loopback) != nil)
        let hosts = WebhookAddressPolicy(allowedHosts: ["ci.internal"])
        #expect(refusal("10.0.0.1", policy: hosts, host: "CI.internal") == nil)
        #expect(refusal("10.0.0.1", policy: hosts, host: "other.internal") != nil)
        #expect(refusal("169.254.169.254", policy: hosts, host: "ci.internal") != nil)
        #expect(refusal("127.0.0.1", policy: hosts, host: "ci.internal") != nil)

        // http only where every address is loopback, and only with the allowance.
        let http = try WebhookURL("http://receiver.test:8080/hook")
        #expect(loopback.refusal(of: [.v4(0x7F00_0001)], for: http) == nil)
        #expect(loopback.refusal(of: [.v4(0x5DB8_D822)], for: http) != nil)
        #expect(strict.refusal(of: [.v4(0x7F00_0001)], for: http) != nil)
        // Every address a name resolves to must be allowed, and there must be one.
        let https = try WebhookURL("https://receiver.test/hook")
        #expect(strict.refusal(of: [.v4(0x5DB8_D822), .v4(0x0A00_0001)], for: https) != nil)
        #expect(strict.refusal(of: [], for: https) != nil)
        #expect(strict.refusal(of: [.v4(0x5DB8_D822)], for: https) == nil)
    }

    @Test("URLs are read strictly: https, a host, no credentials, no fragment, a valid port")
    func urls() throws {
        let url = try WebhookURL("HTTPS://Hooks.Example.com:8443/in?token=abc")
        #expect(url.scheme == .https && url.host == "hooks.example.com" && url.port == 8443)
        #expect(url.target == "/in?token=abc")
        #expect(url.origin == "https://hooks.example.com:8443")
        #expect(try WebhookURL("https://0x7f.1/").literalAddress == .v4(0x7F00_0001))
        #expect(try WebhookURL("https://[::1]/").literalAddress == IPAddress("::1"))
        for text in ["ftp://example.com/", "https://user:pass@example.com/", "https://a@b/", "https://example.com/#x",
                     "https://example.com:0/", "https://example.com:99999/", "https:///x", "https://exa mple.com/",
                     "https://1.2.3.999/", "https://[::1/", "https://-bad-.com/", "https://example.com\\@evil/"] {
            #expect(throws: CatalogError.self, "\(text)") { try WebhookURL(text) }
        }
    }

    @Test("an endpoint's filters select events by kind and app; none outside an app when limited to apps")
    func filters() throws {
        let url = try WebhookURL("https://example.com/")
        let all = WebhookEndpoint(id: .init(), url: url, apps: nil, kinds: nil, createdAt: .now, deliveredThrough: 0)
        #expect(all.wants(kind: .keyCreated, app: nil))
        let limited = WebhookEndpoint(id: .init(), url: url, apps: ["com.a"], kinds: [.action], createdAt: .now,
                                      deliveredThrough: 0)
        #expect(limited.wants(kind: .action, app: "com.a"))
        #expect(!limited.wants(kind: .action, app: "com.b"))
        #expect(!limited.wants(kind: .created, app: "com.a"))
        #expect(!limited.wants(kind: .action, app: nil))
        // History records where an endpoint is, never its path and query (a receiver's token may be there).
        let tokenized = WebhookEndpoint(id: .init(), url: try WebhookURL("https://example.com/in?token=s3cr3t"),
                                        apps: nil, kinds: nil, createdAt: .now, deliveredThrough: 0)
        #expect(!"\(tokenized.historyFields)".contains("s3cr3t"))
    }

    @Test("a secret is 32 random bytes written whsec_ and base64, and never described")
    func secret() {
        let secret = WebhookSecret.generate()
        #expect(secret.bytes.count == 32)
        #expect(secret.text.hasPrefix("whsec_"))
        #expect(secret != WebhookSecret.generate())
        let body = String(secret.text.dropFirst(6))
        for description in ["\(secret)", String(reflecting: secret), "\([secret])"] {
            #expect(!description.contains(body))
        }
    }
}
