import CatalogStore
import NIOCore
import Testing

/// The one wait of the service's loops and waiting requests: woken, at its deadline, or ended.
@Suite("Wakeup")
struct WakeupTests {
    @Test("a wake-up during a wait ends it at once; unwoken, a wait lasts until its deadline")
    func wokenOrDeadline() async throws {
        let wakeup = Wakeup()
        let clock = ContinuousClock()
        var start = clock.now
        #expect(await wakeup.wait(for: .milliseconds(200)) == .deadline)
        #expect(clock.now - start >= .milliseconds(200))
        #expect(await wakeup.wait(until: .now() - .milliseconds(1)) == .deadline)

        start = clock.now
        async let woken = wakeup.wait(for: .seconds(30))
        try await Task.sleep(for: .milliseconds(50))
        wakeup.wake()
        #expect(await woken == .woken)
        #expect(clock.now - start < .seconds(10))

        // No deadline: only a wake-up ends it.
        async let unbounded = wakeup.wait(until: nil)
        try await Task.sleep(for: .milliseconds(50))
        wakeup.wake()
        #expect(await unbounded == .woken)
    }

    @Test("wake-ups before a wait are kept for it, as one")
    func keptAsOne() async {
        let wakeup = Wakeup()
        let clock = ContinuousClock()
        wakeup.wake()
        wakeup.wake()
        var start = clock.now
        #expect(await wakeup.wait(for: .seconds(30)) == .woken)
        #expect(clock.now - start < .seconds(10))
        start = clock.now
        #expect(await wakeup.wait(for: .milliseconds(200)) == .deadline)
        #expect(clock.now - start >= .milliseconds(200))
    }

    @Test("an earlier wait's deadline has no hold on the next wait")
    func earlierDeadline() async throws {
        let wakeup = Wakeup()
        let clock = ContinuousClock()
        // The first deadline is far beyond the sleep, so that a loaded machine still wakes the first wait before it.
        async let early = wakeup.wait(for: .seconds(1))
        try await Task.sleep(for: .milliseconds(50))
        wakeup.wake()
        #expect(await early == .woken)
        // The first wait's timer would fire about a second from its start, within this one.
        let start = clock.now
        #expect(await wakeup.wait(for: .milliseconds(1_500)) == .deadline)
        #expect(clock.now - start >= .milliseconds(1_500))
    }

    @Test("a cancelled wait ends at once, however far its deadline, and leaves the next wait its own")
    func cancelled() async throws {
        let wakeup = Wakeup()
        let clock = ContinuousClock()
        let start = clock.now
        let task = Task { await wakeup.wait(for: .seconds(30)) }
        try await Task.sleep(for: .milliseconds(50))
        task.cancel()
        #expect(await task.value == .ended)
        #expect(clock.now - start < .seconds(10))
        let cancelledFirst = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await wakeup.wait(until: nil)
        }
        #expect(await cancelledFirst.value == .ended)
        #expect(await wakeup.wait(for: .milliseconds(50)) == .deadline)
    }

    @Test("finished: the wait and every later one end, after a wake-up kept from before")
    func finished() async throws {
        let wakeup = Wakeup()
        async let waiting = wakeup.wait(for: .seconds(30))
        try await Task.sleep(for: .milliseconds(50))
        wakeup.finish()
        #expect(await waiting == .ended)
        #expect(await wakeup.wait(for: .seconds(30)) == .ended)

        let other = Wakeup()
        other.wake()
        other.finish()
        #expect(await other.wait(until: nil) == .woken)
        #expect(await other.wait(until: nil) == .ended)
    }
}
