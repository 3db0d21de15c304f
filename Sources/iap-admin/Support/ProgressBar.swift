import Foundation

/// A one-line progress bar on stderr for long operations (bulk create, imports), drawn only when stderr is
/// a terminal: in a pipe or a log it would be noise.
struct ProgressBar {
    let total: Int
    let console: Console
    let isShown: Bool

    /// Cells of the bar itself.
    static let width = 28

    init(total: Int, console: Console) {
        self.total = total
        self.console = console
        isShown = console.errorIsTerminal && total > 1
    }

    /// Redraws the bar: `done` of `total`, and what is being worked on.
    func update(done: Int, _ label: String) {
        guard isShown else { return }
        let filled = total == 0 ? Self.width : Self.width * done / total
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: Self.width - filled)
        let percent = total == 0 ? 100 : 100 * done / total
        console.noteInline("\r\u{1B}[K\(bar) \(done)/\(total) \(percent)%  \(label.prefix(40))")
    }

    /// Prints a line above the bar (a failure, say) without garbling it.
    func note(_ line: String) {
        if isShown { console.noteInline("\r\u{1B}[K") }
        console.note(line)
    }

    /// Removes the bar.
    func finish() {
        guard isShown else { return }
        console.noteInline("\r\u{1B}[K")
    }
}

/// Progress of an operation whose end is not known in advance (a streamed export): a count and a size on
/// stderr, redrawn at most ten times a second, only when stderr is a terminal.
struct ProgressCounter {
    let console: Console
    let isShown: Bool
    private var lastDrawn = ContinuousClock.now - .seconds(1)

    init(console: Console) {
        self.console = console
        isShown = console.errorIsTerminal
    }

    mutating func update(_ count: Int, _ noun: String, bytes: Int) {
        guard isShown, ContinuousClock.now - lastDrawn >= .milliseconds(100) else { return }
        lastDrawn = ContinuousClock.now
        console.noteInline("\r\u{1B}[K\(count) \(noun), \(ByteSize(bytes))")
    }

    func finish() {
        if isShown { console.noteInline("\r\u{1B}[K") }
    }
}

/// A size in bytes as people read it.
struct ByteSize: CustomStringConvertible {
    let bytes: Int

    init(_ bytes: Int) {
        self.bytes = bytes
    }

    var description: String {
        switch bytes {
        case ..<1024: "\(bytes) B"
        case ..<(1024 * 1024): String(format: "%.1f KB", Double(bytes) / 1024)
        default: String(format: "%.1f MB", Double(bytes) / 1024 / 1024)
        }
    }
}
