@testable import CatalogStore
import Testing

/// How far history can be read: up to the newest mark whose running transactions have all ended.
@Suite("History marks")
struct HistoryMarksTests {
    @Test("with nothing running, a mark is settled at once")
    func quiet() {
        var marks = HistoryMarks()
        var moved: Bool
        #expect(marks.settled == nil)
        moved = marks.record(assigned: 0, running: [])
        #expect(moved)
        #expect(marks.settled == 0)
        moved = marks.record(assigned: 12, running: [])
        #expect(moved)
        #expect(marks.settled == 12 && !marks.isWaiting)
        moved = marks.record(assigned: 12, running: [])
        #expect(!moved)
    }

    @Test("a mark waits until every transaction running when it was taken has ended, whatever started since")
    func waitsForItsTransactions() {
        var marks = HistoryMarks()
        var moved: Bool
        _ = marks.record(assigned: 5, running: [])
        moved = marks.record(assigned: 9, running: ["100", "101"])
        #expect(!moved)
        #expect(marks.settled == 5 && marks.isWaiting)
        // 101 still runs: nothing up to 9 is certain; 102 began after the mark and does not count for it.
        moved = marks.record(assigned: 11, running: ["101", "102"])
        #expect(!moved)
        #expect(marks.settled == 5)
        // 100 and 101 have ended: up to 9 is settled; 11 still waits for 102.
        moved = marks.record(assigned: 11, running: ["102"])
        #expect(moved)
        #expect(marks.settled == 9 && marks.isWaiting)
        moved = marks.record(assigned: 11, running: ["103"])
        #expect(moved)
        #expect(marks.settled == 11)
        moved = marks.record(assigned: 14, running: [])
        #expect(moved)
        #expect(marks.settled == 14 && !marks.isWaiting)
    }

    @Test("the position never moves back, and a long transaction holds back only what came after it began")
    func monotonic() {
        var marks = HistoryMarks()
        var moved: Bool
        _ = marks.record(assigned: 20, running: [])
        // A mark that has nothing new is not kept.
        moved = marks.record(assigned: 20, running: ["7"])
        #expect(!moved)
        #expect(!marks.isWaiting)
        moved = marks.record(assigned: 25, running: ["7"])
        #expect(!moved)
        for assigned in 26...40 {
            moved = marks.record(assigned: Int64(assigned), running: ["7", "\(assigned)"])
            #expect(!moved)
        }
        #expect(marks.settled == 20)
        moved = marks.record(assigned: 41, running: ["8"])
        #expect(moved)
        #expect(marks.settled == 40)
    }

    @Test("at most a fixed number of marks wait; the newest replaces the newest waiting")
    func bounded() {
        var marks = HistoryMarks()
        for assigned in 1...100 { _ = marks.record(assigned: Int64(assigned), running: ["1"]) }
        #expect(marks.settled == nil)
        let moved = marks.record(assigned: 100, running: ["2"])
        #expect(moved)
        #expect(marks.settled == 100)
    }
}
