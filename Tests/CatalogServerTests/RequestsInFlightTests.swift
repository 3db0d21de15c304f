@testable import CatalogServer
import Testing

/// What background work (webhook deliveries, receipt leases) gives way to: the API's requests in flight.
@Suite("Requests in flight")
struct RequestsInFlightTests {
    @Test("giving way waits while more requests than the limit are in flight, at most its time")
    func waitsWhileBusy() async throws {
        let requests = RequestsInFlight()
        let clock = ContinuousClock()
        requests.begin()
        // At the limit: not busy.
        #expect(try await requests.giveWay(above: 1, atMost: .seconds(5)) < .milliseconds(100))
        requests.begin()
        requests.begin()
        #expect(requests.current == 3)
        // Busy throughout: the whole time, and no longer.
        var waited = try await requests.giveWay(above: 1, atMost: .milliseconds(300))
        #expect(waited >= .milliseconds(300) && waited < .seconds(3))
        // Busy until two requests end: until then.
        let start = clock.now
        async let ending: Void = {
            try await Task.sleep(for: .milliseconds(200))
            requests.end()
            requests.end()
        }()
        waited = try await requests.giveWay(above: 1, atMost: .seconds(30))
        try await ending
        #expect(waited >= .milliseconds(150) && clock.now - start < .seconds(10))
        // A limit of 0 never waits.
        requests.begin()
        requests.begin()
        #expect(try await requests.giveWay(above: 0, atMost: .seconds(30)) < .milliseconds(100))
    }

    @Test("a request that only waits is not counted while it waits")
    func idleWaitIsNotCounted() async throws {
        let requests = RequestsInFlight()
        requests.begin()
        requests.begin()
        let inside = await requests.idle { requests.current }
        #expect(inside == 1)
        #expect(requests.current == 2)
        struct Failed: Error {}
        await #expect(throws: Failed.self) { try await requests.idle { throw Failed() } }
        #expect(requests.current == 2)
    }
}
