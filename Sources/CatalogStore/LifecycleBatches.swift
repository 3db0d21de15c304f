import CatalogCore
import Foundation
import PostgresNIO
import Synchronization

/// Lifecycle changes of concurrent operations (what ``ProductRepository/SaveState`` writes), written together:
/// the changes waiting when a batch starts are written by one statement and committed by one commit.
///
/// Each change is still a compare-and-set on the version and state it was made from, with its history event,
/// and its operation is answered only once the batch has committed, so an acknowledged action is a committed
/// one. Writing them together divides among them what PostgreSQL does per statement and per transaction
/// (starting the statement, preparing its constraints, the commit and its WAL flush) and the round trip the
/// server makes, which were more than a third of an action's cost (docs/performance.md).
///
/// At most ``maximumRunning`` batches run at once, each of at most ``maximumSize`` changes; a change that
/// arrives while they run waits for the next. A batch locks its product rows in one order (see
/// ``ProductRepository/SaveStates``), so batches never wait for each other in a circle. When a batch's statement
/// fails for any other reason than a database that is away (a trigger's refusal of one change, a writer outside
/// the catalog's statements), its changes are written again one by one, so that each gets its own answer and one
/// refusal is never another's.
final class LifecycleBatches: Sendable {
    /// One lifecycle change: `product` over `previous`, made by `cause`, with its event.
    struct Change: Sendable {
        let product: Product
        let previous: Product
        let cause: String
        let event: HistoryRecord
    }

    static let maximumRunning = 2
    static let maximumSize = 64

    private struct Pending {
        let change: Change
        let continuation: CheckedContinuation<Bool, any Error>
    }

    private struct State {
        var pending: [Pending] = []
        var running = 0
        /// Changes saved but not answered yet: waiting or in a running batch.
        var unanswered = 0

        mutating func take() -> [Pending] {
            let batch = Array(pending.prefix(LifecycleBatches.maximumSize))
            pending.removeFirst(batch.count)
            return batch
        }
    }

    private let state = Mutex(State())

    /// How many changes wait for their batch or are being written, for metrics.
    var unanswered: Int { state.withLock { $0.unanswered } }

    /// Writes `change` with the changes of other operations; answers whether it was saved (`false`: someone
    /// changed the product since it was read).
    func save(_ change: Change, on database: Database) async throws -> Bool {
        try await withCheckedThrowingContinuation { continuation in
            let batch = state.withLock { state -> [Pending]? in
                state.pending.append(Pending(change: change, continuation: continuation))
                state.unanswered += 1
                guard state.running < Self.maximumRunning else { return nil }
                state.running += 1
                return state.take()
            }
            // Detached: the batches are no operation's, and must not run on a connection an operation holds.
            if let batch { Task.detached { await self.drain(batch, on: database) } }
        }
    }

    /// Writes `batch`, then every batch that is waiting, until none is.
    private func drain(_ first: [Pending], on database: Database) async {
        var batch = first
        while true {
            await write(batch, on: database)
            let next = state.withLock { state -> [Pending]? in
                state.unanswered -= batch.count
                guard !state.pending.isEmpty else {
                    state.running -= 1
                    return nil
                }
                return state.take()
            }
            guard let next else { return }
            batch = next
        }
    }

    private func write(_ batch: [Pending], on database: Database) async {
        if batch.count == 1, let only = batch.first {
            await Self.writeAlone(only, on: database)
            return
        }
        let rows: [PostgresRow]
        do {
            rows = try await database.execute(ProductRepository.SaveStates(batch.map(\.change)))
        } catch let error as StoreUnavailable {
            for pending in batch { pending.continuation.resume(throwing: error) }
            return
        } catch {
            for pending in batch { await Self.writeAlone(pending, on: database) }
            return
        }
        // The batch is committed: a row that does not decode leaves unknown which changes were saved. Each is
        // then an error, never "not saved" (a conflict that did not happen), nor written again.
        let saved: Set<Int>
        do {
            saved = try Self.savedOrdinals(rows)
        } catch {
            for pending in batch { pending.continuation.resume(throwing: error) }
            return
        }
        for (index, pending) in batch.enumerated() {
            pending.continuation.resume(returning: saved.contains(index + 1))
        }
    }

    /// The ordinals (from 1) of the changes ``ProductRepository/SaveStates`` saved, one per row it answered.
    static func savedOrdinals(_ rows: [PostgresRow]) throws -> Set<Int> {
        Set(try rows.map { try $0.decode(Int.self) })
    }

    private static func writeAlone(_ pending: Pending, on database: Database) async {
        let change = pending.change
        do {
            let rows = try await database.execute(ProductRepository.SaveState(
                product: change.product, previous: change.previous, cause: change.cause, event: change.event))
            pending.continuation.resume(returning: !rows.isEmpty)
        } catch {
            pending.continuation.resume(throwing: error)
        }
    }
}
