@testable import CatalogStore
import CatalogTestSupport
import Foundation
import Synchronization
import Testing

/// When batches start: at once when none is being written; while one is, another only once enough items wait
/// (half a batch unless given), so that a lone item does not take the second place and leave the rest waiting
/// behind a batch of one.
@Suite("Write batches")
struct WriteBatchesTests {
    /// The sizes of the batches written, in the order they started; the first `held` wait until released.
    final class Recorder: Sendable {
        private let sizes = Mutex<[Int]>([])
        private let gates: [(stream: AsyncStream<Void>, continuation: AsyncStream<Void>.Continuation)]

        init(held: Int = 1) {
            gates = (0..<held).map { _ in AsyncStream<Void>.makeStream() }
        }

        var started: [Int] { sizes.withLock { $0 } }

        func write(_ count: Int) async {
            let index = sizes.withLock { sizes in
                sizes.append(count)
                return sizes.count - 1
            }
            if index < gates.count { for await _ in gates[index].stream { break } }
        }

        /// Lets the `index`th batch (from 0) end.
        func release(_ index: Int) { gates[index].continuation.yield() }

        /// Lets every held batch end, so that a failed test's group of writers can end too.
        func releaseAll() { for gate in gates { gate.continuation.finish() } }
    }

    static func until(_ what: String, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw TestSetupError("timed out waiting for \(what)") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Two places of 64 items, as the service's batches; each item is answered itself.
    static func batches(recordedBy recorder: Recorder, enoughForAnother: Int? = nil) -> WriteBatches<Int, Int> {
        WriteBatches<Int, Int>(
            maximumRunning: 2, maximumSize: 64, enoughForAnother: enoughForAnother,
            batch: { items, _ in
                await recorder.write(items.count)
                return items.map { $0 }
            },
            alone: { item, _ in
                await recorder.write(1)
                return item
            })
    }

    /// How many writes were answered, each with its own item.
    static func answered(_ group: inout ThrowingTaskGroup<(Int, Int), any Error>) async throws -> Int {
        var answered = 0
        for try await (item, answer) in group {
            #expect(answer == item)
            answered += 1
        }
        return answered
    }

    /// Half a batch by default (the purchases' intake); the actions' batches give a quarter (LifecycleBatches).
    @Test("while a batch is written, the next starts only once enough wait (half, or as given); all are answered",
          arguments: [(nil, 32), (16, 16)] as [(Int?, Int)])
    func secondBatchWaitsForEnough(given: Int?, enough: Int) async throws {
        let url = try await TestDatabase.forSuite("write_batches_\(enough)")
        try await TestDatabase.withClient(url) { client in
            let database = Database(client: client, logger: TestDatabase.logger, batching: true)
            let recorder = Recorder()
            let batches = Self.batches(recordedBy: recorder, enoughForAnother: given)
            #expect(batches.enoughForAnother == enough)
            try await withThrowingTaskGroup(of: (Int, Int).self) { group in
                defer { recorder.releaseAll() }
                group.addTask { (0, try await batches.write(0, on: database)) }
                try await Self.until("the first batch") { recorder.started == [1] }
                for item in 1..<enough { group.addTask { (item, try await batches.write(item, on: database)) } }
                try await Self.until("\(enough - 1) items waiting") { batches.unanswered == enough }
                #expect(recorder.started == [1], "a second batch started before \(enough) items waited")
                group.addTask { (enough, try await batches.write(enough, on: database)) }
                try await Self.until("the second batch") { recorder.started.count == 2 }
                #expect(recorder.started == [1, enough])
                recorder.release(0)
                #expect(try await Self.answered(&group) == enough + 1)
            }
            #expect(batches.unanswered == 0)
        }
    }

    @Test("a batch that ends while another is written leaves fewer than half a batch to the other's end")
    func endingBatchLeavesFewToTheOther() async throws {
        let url = try await TestDatabase.forSuite("write_batches_end")
        try await TestDatabase.withClient(url) { client in
            let database = Database(client: client, logger: TestDatabase.logger, batching: true)
            let recorder = Recorder(held: 2)
            let batches = Self.batches(recordedBy: recorder)
            try await withThrowingTaskGroup(of: (Int, Int).self) { group in
                defer { recorder.releaseAll() }
                group.addTask { (0, try await batches.write(0, on: database)) }
                try await Self.until("the first batch") { recorder.started == [1] }
                for item in 1...32 { group.addTask { (item, try await batches.write(item, on: database)) } }
                try await Self.until("the second batch") { recorder.started == [1, 32] }
                for item in 33...35 { group.addTask { (item, try await batches.write(item, on: database)) } }
                try await Self.until("3 items waiting") { batches.unanswered == 36 }
                recorder.release(0)
                try await Self.until("the first batch's end") { batches.unanswered == 35 }
                try await Task.sleep(for: .milliseconds(100))
                #expect(recorder.started == [1, 32], "the first batch's end started a batch of 3 beside the second")
                recorder.release(1)
                try await Self.until("the third batch") { recorder.started.count == 3 }
                #expect(recorder.started == [1, 32, 3])
                #expect(try await Self.answered(&group) == 36)
            }
            #expect(batches.unanswered == 0)
        }
    }
}
