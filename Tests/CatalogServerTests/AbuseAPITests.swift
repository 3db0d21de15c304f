import CatalogAPI
import CatalogCore
import CatalogServer
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Per-key rate limits and the metrics that show the service at work.
@Suite("Abuse limits and metrics over HTTP")
struct AbuseAPITests {
    @Test("a key over its rate limit gets 429 with Retry-After; other keys and public routes go on")
    func rateLimit() async throws {
        let fixture = try await APIFixture.forSuite("abuse_api")
        let noisy = try await fixture.key(.auditor)
        let quiet = try await fixture.key(.auditor)
        var limits = ServiceLimits.standard
        limits.requestsPerSecondPerKey = 0.001  // no token comes back during the test, however slow the machine
        limits.burstPerKey = 5
        try await fixture.run(limits: limits) { api in
            var statuses: [HTTPResponse.Status] = []
            var limited: TestResponse?
            for _ in 0..<8 {
                let response = try await api.send(.get, "/v1/apps", key: noisy)
                statuses.append(response.status)
                if response.status == .tooManyRequests { limited = response }
            }
            #expect(statuses.prefix(5).allSatisfy { $0 == .ok })
            #expect(statuses.suffix(3).allSatisfy { $0 == .tooManyRequests })
            let refused = try #require(limited)
            _ = try problem(refused, .tooManyRequests, "rate-limited")
            #expect(Int(refused.headers[.retryAfter] ?? "") ?? 0 >= 1)
            #expect(try await api.send(.get, "/v1/apps", key: quiet).status == .ok)
            #expect(try await api.send(.get, "/v1/health/live").status == .ok)
        }
    }

    @Test("/metrics shows requests per route, actions per outcome and the connection pool")
    func metrics() async throws {
        let fixture = try await APIFixture.forSuite("abuse_api")
        let keys = try await fixture.keys()
        try await fixture.run { api in
            let app = "com.abuse.metrics"
            try await api.createApp(app, key: keys.admin)
            try await api.createProduct(app, "p", type: .consumable, key: keys.developer)
            try await api.move(.approve, app, "p", key: keys.developer)
            _ = try await api.act(.approve, app, "p", key: keys.developer)
            _ = try await api.send(.get, "/v1/apps/\(app)/product-identifiers")
            let text = String(buffer: try await api.send(.get, "/metrics").body)
            #expect(text.contains(#"http_requests_total{route="/v1/apps/{bundleId}/product-identifiers",method="GET",status="200"} 1"#))
            #expect(text.contains(#"route="/v1/apps/{bundleId}/products/{productId}/actions""#))
            #expect(text.contains(#"catalog_actions_total{action="approve",outcome="applied"} 1"#))
            #expect(text.contains(#"catalog_actions_total{action="approve",outcome="invalid-transition"} 1"#))
            #expect(text.contains("db_pool_connections_max 8"))  // the tests' pool (APIFixture)
            #expect(text.contains("http_request_duration_seconds_bucket"))
            #expect(!text.contains(keys.admin) && !text.contains(app + "/products/p\""))
        }
    }
}
