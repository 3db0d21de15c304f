@testable import CatalogServer
import Foundation
import Synchronization
import Testing

/// The in-process signals of submissions: an outcome recorded wakes the reads waiting for it at once.
@Suite("Submission signals")
struct SubmissionSignalsTests {
    @Test("a waiting read answers when the outcome is signalled, long before its poll or its deadline")
    func wakesAtOnce() async throws {
        let signals = SubmissionSignals()
        let id = UUID()
        let settled = Atomic<Bool>(false)
        let reads = Atomic<Int>(0)
        let clock = ContinuousClock()
        let start = clock.now
        async let answer = signals.wait(for: id, until: start.advanced(by: .seconds(30)), poll: .seconds(30),
                                        isSettled: { $0 }, read: {
                                            reads.add(1, ordering: .relaxed)
                                            return settled.load(ordering: .relaxed)
                                        })
        while signals.waiting == 0 || reads.load(ordering: .relaxed) == 0 { try await Task.sleep(for: .milliseconds(5)) }
        settled.store(true, ordering: .relaxed)
        signals.outcomeRecorded(id)
        #expect(try await answer == true)
        #expect(clock.now - start < .seconds(10) && signals.waiting == 0)
    }

    @Test("unsignalled, it reads again at each poll and answers at the deadline with what it read")
    func pollsAndGivesUp() async throws {
        let signals = SubmissionSignals()
        let reads = Atomic<Int>(0)
        let clock = ContinuousClock()
        let start = clock.now
        let answer = try await signals.wait(for: UUID(), until: start.advanced(by: .milliseconds(450)),
                                            poll: .milliseconds(100), isSettled: { (_: Int) in false }, read: {
                                                reads.add(1, ordering: .relaxed).newValue
                                            })
        #expect(clock.now - start >= .milliseconds(450))
        // At least one poll after the first read (the machine decides how many more fit).
        #expect(reads.load(ordering: .relaxed) >= 2 && answer == reads.load(ordering: .relaxed))
        #expect(signals.waiting == 0)
    }

    @Test("receipts queued reach every listener until it stops listening")
    func queued() {
        let signals = SubmissionSignals()
        let heard = Atomic<Int>(0)
        let token = signals.onReceiptsQueued { heard.add(1, ordering: .relaxed) }
        signals.receiptsQueued()
        signals.stopListening(token)
        signals.receiptsQueued()
        #expect(heard.load(ordering: .relaxed) == 1)
    }
}
