@testable import CatalogServer
import Foundation
import Synchronization
import Testing

/// The gate the receipt worker waits at until the process's migrations are applied: waits end when it opens,
/// a wait after it opened does not wait, and a cancelled wait ends at once with the gate still closed.
@Suite("Schema ready", .timeLimit(.minutes(1)))
struct SchemaReadyTests {
    @Test("waits end when the gate opens, not before; once open, a wait returns at once")
    func opens() async throws {
        let schema = SchemaReady()
        let ended = EndedWaits()
        let waiters = (0..<3).map { _ in Task { await schema.wait(); ended.add() } }
        try await Task.sleep(for: .milliseconds(200))
        #expect(ended.count == 0 && !schema.isOpen)
        schema.open()
        for waiter in waiters { await waiter.value }
        #expect(ended.count == 3 && schema.isOpen)
        await schema.wait()  // open: returns at once (a hang fails the suite's time limit)
    }

    @Test("a cancelled wait ends at once, the gate still closed")
    func cancelled() async throws {
        let schema = SchemaReady()
        let waiter = Task { await schema.wait() }
        try await Task.sleep(for: .milliseconds(100))
        waiter.cancel()
        await waiter.value
        #expect(!schema.isOpen)
        let already = Task { await schema.wait() }
        already.cancel()
        await already.value
    }
}

/// A count shared with tasks.
private final class EndedWaits: Sendable {
    private let value = Mutex(0)
    var count: Int { value.withLock { $0 } }
    func add() { value.withLock { $0 += 1 } }
}
