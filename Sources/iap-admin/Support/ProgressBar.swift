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
