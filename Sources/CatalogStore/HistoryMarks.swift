import DequeModule

/// Where history can be read to without skipping an event: the highest sequence below which no event can still
/// appear (migration 0014 says why a reader must stop there).
///
/// Each mark is what `history_mark()` answered at one moment: the last sequence number handed out, and the
/// transactions of the database running just after. A mark is settled once none of those transactions runs any
/// more; every event numbered up to a settled mark is then committed or never will be. Marks must be recorded in
/// the order they were taken (one caller, one after the other): each mark's running transactions settle the
/// marks taken before it.
struct HistoryMarks: Sendable {
    /// Marks waiting to settle, at most this many; a newer one then replaces the newest waiting.
    static let capacity = 16

    private struct Mark: Sendable {
        let assigned: Int64
        let running: Set<String>
    }

    /// Every event numbered up to this is committed or never will be; `nil` until the first mark settles.
    private(set) var settled: Int64?
    private var waiting: Deque<Mark> = []

    /// Whether some marks wait for transactions to end (the feed looks again soon).
    var isWaiting: Bool { !waiting.isEmpty }

    /// Records the mark `assigned`, `running` taken now, after every mark recorded before; answers whether
    /// ``settled`` moved forward.
    mutating func record(assigned: Int64, running: Set<String>) -> Bool {
        let before = settled
        // A transaction still running now that was running when a mark was taken is in `running`; a mark none of
        // whose transactions is there is settled, and so is every mark taken before it.
        if let newest = waiting.lastIndex(where: { $0.running.isDisjoint(with: running) }) {
            settle(waiting[newest].assigned)
            waiting.removeFirst(newest + 1)
        }
        if running.isEmpty {
            settle(assigned)
            waiting.removeAll()
        } else if assigned > (waiting.last?.assigned ?? settled ?? -1) {
            if waiting.count == Self.capacity { waiting.removeLast() }
            waiting.append(Mark(assigned: assigned, running: running))
        }
        return settled != before
    }

    private mutating func settle(_ assigned: Int64) {
        settled = max(settled ?? assigned, assigned)
    }
}
