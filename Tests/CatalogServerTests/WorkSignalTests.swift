@testable import CatalogServer
import Foundation
import Testing

/// The verification worker's wake-up: a ring wakes a wait at once, a ring with nobody waiting is kept for the
/// next wait (once), and an unrung wait lasts its time.
@Suite("Work signal")
struct WorkSignalTests {
    @Test("a ring during a wait ends it at once; unrung, a wait lasts its time")
    func ringDuringWait() async throws {
        let work = WorkSignal()
        let clock = ContinuousClock()
        var start = clock.now
        await work.wait(upTo: .milliseconds(200))
        #expect(clock.now - start >= .milliseconds(190))
        start = clock.now
        async let waited: Void = work.wait(upTo: .seconds(30))
        try await Task.sleep(for: .milliseconds(100))
        work.ring()
        await waited
        #expect(clock.now - start < .seconds(10))
    }

    @Test("a ring before the wait is kept for it, once")
    func ringBeforeWait() async {
        let work = WorkSignal()
        let clock = ContinuousClock()
        work.ring()
        work.ring()
        var start = clock.now
        await work.wait(upTo: .seconds(30))
        #expect(clock.now - start < .seconds(10))
        start = clock.now
        await work.wait(upTo: .milliseconds(200))
        #expect(clock.now - start >= .milliseconds(190))
    }

    @Test("a cancelled wait returns at once and keeps no ring from later")
    func cancelled() async {
        let work = WorkSignal()
        let clock = ContinuousClock()
        let start = clock.now
        let task = Task { await work.wait(upTo: .seconds(30)) }
        try? await Task.sleep(for: .milliseconds(50))
        task.cancel()
        await task.value
        #expect(clock.now - start < .seconds(10))
    }
}
