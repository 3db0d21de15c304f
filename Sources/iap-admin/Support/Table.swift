/// Rows in aligned columns under a header, the way `gh` and `kubectl` list things. Widths are measured on
/// the plain text, so colour never breaks the alignment.
struct Table {
    struct Cell {
        var text: String
        var style: Style?

        init(_ text: String, _ style: Style? = nil) {
            self.text = text
            self.style = style
        }
    }

    let headers: [String]
    private(set) var rows: [[Cell]] = []

    init(_ headers: String...) {
        self.headers = headers
    }

    mutating func add(_ cells: Cell...) {
        rows.append(cells)
    }

    mutating func add(_ cells: [Cell]) {
        rows.append(cells)
    }

    /// The table as lines: header first, two spaces between columns, no trailing spaces.
    func lines(on console: Console) -> [String] {
        var widths = headers.map(\.displayWidth)
        for row in rows {
            for (index, cell) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], cell.text.displayWidth)
            }
        }
        func line(_ cells: [Cell], header: Bool) -> String {
            var parts: [String] = []
            for (index, cell) in cells.enumerated() {
                let isLast = index == cells.count - 1
                let padding = isLast ? "" : String(repeating: " ", count: max(0, widths[index] - cell.text.displayWidth))
                let text = header ? console.paint(cell.text, .bold) : cell.style.map { console.paint(cell.text, $0) } ?? cell.text
                parts.append(text + padding)
            }
            var joined = parts.joined(separator: "  ")
            while joined.hasSuffix(" ") { joined.removeLast() }
            return joined
        }
        return [line(headers.map { Cell($0) }, header: true)] + rows.map { line($0, header: false) }
    }

    func print(on console: Console) {
        for line in lines(on: console) { console.print(line) }
    }
}

/// Label and value pairs, labels aligned: how one thing is shown.
struct Details {
    private(set) var pairs: [(label: String, value: String)] = []

    mutating func add(_ label: String, _ value: String?) {
        guard let value else { return }
        pairs.append((label, value))
    }

    func print(on console: Console) {
        let width = pairs.map(\.label.displayWidth).max() ?? 0
        for (label, value) in pairs {
            let padded = label + ":" + String(repeating: " ", count: width - label.displayWidth + 2)
            console.print(console.paint(padded, .bold) + value)
        }
    }
}

extension String {
    /// Columns the text takes on a terminal: East Asian wide characters take two, combining marks none.
    var displayWidth: Int {
        var width = 0
        for character in self {
            guard let scalar = character.unicodeScalars.first else { continue }
            switch scalar.value {
            case 0x1100...0x115F, 0x2E80...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F,
                 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD:
                width += 2
            default:
                width += 1
            }
        }
        return width
    }
}
