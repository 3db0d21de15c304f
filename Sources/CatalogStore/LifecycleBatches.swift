import CatalogCore
import PostgresNIO

/// Lifecycle changes of concurrent operations (what ``ProductRepository/SaveState`` writes), written together
/// (``WriteBatches``): the changes waiting when a batch starts are written by one statement and committed by one
/// commit.
///
/// Each change is still a compare-and-set on the version and state it was made from, with its history event,
/// and its operation is answered only once the batch has committed, so an acknowledged action is a committed
/// one. Writing them together divides among them what PostgreSQL does per statement and per transaction
/// (starting the statement, preparing its constraints, the commit and its WAL flush) and the round trip the
/// server makes, which were more than a third of an action's cost (docs/performance.md).
///
/// At most two batches run at once, each of at most 64 changes, the second only once 16 changes wait (a quarter
/// of a batch, not the half the purchases' intake waits for: the actions' clients are fewer, and 32 of them could
/// never make half a batch while another is written); a change that arrives while they run waits for the next.
/// A batch locks its product rows in one order (see ``ProductRepository/SaveStates``), so batches never wait for
/// each other in a circle. When a batch's statement fails for any other reason than a database that is away (a
/// trigger's refusal of one change, a writer outside the catalog's statements), its changes are written again one
/// by one, so that each gets its own answer and one refusal is never another's.
final class LifecycleBatches: Sendable {
    /// One lifecycle change: `product` over `previous`, made by `cause`, with its event.
    struct Change: Sendable {
        let product: Product
        let previous: Product
        let cause: String
        let event: HistoryRecord
    }

    private let batches = WriteBatches<Change, Bool>(
        maximumRunning: 2, maximumSize: 64,
        enoughForAnother: 16,
        batch: { changes, database in
            let rows = try await database.execute(ProductRepository.SaveStates(changes))
            // The batch is committed: a row that does not decode leaves unknown which changes were saved. Each
            // is then an error, never "not saved" (a conflict that did not happen), nor written again.
            let saved: Set<Int>
            do {
                saved = try LifecycleBatches.savedOrdinals(rows)
            } catch {
                throw UnreadBatchAnswer(underlying: error)
            }
            return changes.indices.map { saved.contains($0 + 1) }
        },
        alone: { change, database in
            let rows = try await database.execute(ProductRepository.SaveState(
                product: change.product, previous: change.previous, cause: change.cause, event: change.event))
            return !rows.isEmpty
        })

    /// How many changes wait for their batch or are being written, for metrics.
    var unanswered: Int { batches.unanswered }

    /// Writes `change` with the changes of other operations; answers whether it was saved (`false`: someone
    /// changed the product since it was read).
    func save(_ change: Change, on database: Database) async throws -> Bool {
        try await batches.write(change, on: database)
    }

    /// The ordinals (from 1) of the changes ``ProductRepository/SaveStates`` saved, one per row it answered.
    static func savedOrdinals(_ rows: [PostgresRow]) throws -> Set<Int> {
        Set(try rows.map { try $0.decode(Int.self) })
    }
}
