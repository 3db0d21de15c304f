import Foundation
import PostgresNIO
import Synchronization

/// Writes of concurrent operations written together: the items waiting when a batch starts are written by one
/// statement and committed by one commit, and each operation is answered only once its batch has committed, with
/// its own answer. Writing them together divides among them what PostgreSQL does per statement and per transaction
/// (starting the statement, the commit and its WAL flush, for the ledger its app's chain head) and the round trip.
/// ``LifecycleBatches``, the purchases' intake (``PurchaseBatches``) and the verification queue's outcomes
/// (``SubmissionQueue``) write through it.
///
/// At most ``maximumRunning`` batches run at once, each of at most ``maximumSize`` items. A batch starts at once
/// when none is being written; while one is, another starts only once ``enoughForAnother`` items wait (half a
/// batch unless the writer says otherwise), else the waiting items go with the next batch to start. Starting
/// whenever a place was free made half the batches under load a single item (a lone arrival took the free place),
/// each with its own statement, commit and chain head (docs/performance.md, 2026-11-29).
///
/// When a batch's statement fails for any other reason than a database that is away (a deadlock with a
/// concurrent writer, a refusal of one item), or answers nothing for an item, its items are written again one by
/// one, so that each gets its own answer and one refusal is never another's. A batch that committed but whose
/// answer cannot be read (``UnreadBatchAnswer``) answers each item that error: which were written is unknown, so
/// none is written again.
final class WriteBatches<Item: Sendable, Answer: Sendable>: Sendable {
    /// Writes `items` in one statement and answers each item's answer, by position (`nil`: write it alone).
    typealias BatchWrite = @Sendable ([Item], Database) async throws -> [Answer?]
    /// Writes one item on its own.
    typealias SingleWrite = @Sendable (Item, Database) async throws -> Answer

    let maximumRunning: Int
    let maximumSize: Int
    /// While a batch is written, another starts only once this many items wait for it.
    let enoughForAnother: Int
    private let writeBatch: BatchWrite
    private let writeAlone: SingleWrite

    private struct Pending {
        let item: Item
        let continuation: CheckedContinuation<Answer, any Error>
    }

    private struct State {
        var pending: [Pending] = []
        var running = 0
        var unanswered = 0

        /// Whether the waiting items make a batch beside `others` batches being written: any when there are none,
        /// else at least `enough`.
        func batchWaits(besides others: Int, enough: Int) -> Bool {
            others == 0 ? !pending.isEmpty : pending.count >= enough
        }

        mutating func take(_ size: Int) -> [Pending] {
            let batch = Array(pending.prefix(size))
            pending.removeFirst(batch.count)
            return batch
        }
    }

    private let state = Mutex(State())

    init(maximumRunning: Int = 2, maximumSize: Int = 64, enoughForAnother: Int? = nil, batch: @escaping BatchWrite,
         alone: @escaping SingleWrite) {
        self.maximumRunning = maximumRunning
        self.maximumSize = maximumSize
        self.enoughForAnother = max(1, enoughForAnother ?? maximumSize / 2)
        writeBatch = batch
        writeAlone = alone
    }

    /// How many items wait for their batch or are being written, for metrics.
    var unanswered: Int { state.withLock { $0.unanswered } }

    /// Writes `item` with the items of other operations and answers its own answer once its batch committed.
    func write(_ item: Item, on database: Database) async throws -> Answer {
        try await withCheckedThrowingContinuation { continuation in
            let batch = state.withLock { state -> [Pending]? in
                state.pending.append(Pending(item: item, continuation: continuation))
                state.unanswered += 1
                guard state.running < maximumRunning,
                      state.batchWaits(besides: state.running, enough: enoughForAnother) else { return nil }
                state.running += 1
                return state.take(maximumSize)
            }
            // Detached: the batches are no operation's, and must not run on a connection an operation holds.
            if let batch { Task.detached { await self.drain(batch, on: database) } }
        }
    }

    private func drain(_ first: [Pending], on database: Database) async {
        var batch = first
        while true {
            await write(batch, on: database)
            let next = state.withLock { state -> [Pending]? in
                state.unanswered -= batch.count
                guard state.batchWaits(besides: state.running - 1, enough: enoughForAnother) else {
                    state.running -= 1
                    return nil
                }
                return state.take(maximumSize)
            }
            guard let next else { return }
            batch = next
        }
    }

    private func write(_ batch: [Pending], on database: Database) async {
        if batch.count == 1, let only = batch.first {
            await alone(only, on: database)
            return
        }
        let answers: [Answer?]
        do {
            answers = try await writeBatch(batch.map(\.item), database)
        } catch let error as StoreUnavailable {
            for pending in batch { pending.continuation.resume(throwing: error) }
            return
        } catch let error as UnreadBatchAnswer {
            for pending in batch { pending.continuation.resume(throwing: error.underlying) }
            return
        } catch {
            for pending in batch { await alone(pending, on: database) }
            return
        }
        for (index, pending) in batch.enumerated() {
            if index < answers.count, let answer = answers[index] {
                pending.continuation.resume(returning: answer)
            } else {
                await alone(pending, on: database)
            }
        }
    }

    private func alone(_ pending: Pending, on database: Database) async {
        do {
            pending.continuation.resume(returning: try await writeAlone(pending.item, database))
        } catch {
            pending.continuation.resume(throwing: error)
        }
    }
}

/// A batch committed, but what it answered could not be read (see ``WriteBatches``).
struct UnreadBatchAnswer: Error {
    let underlying: any Error
}
