import Yams

/// What a file written by people holds beyond its values, so that `pull` can write the catalog into it and keep
/// it: the comments (above a key or a list element, at the end of its line, at the top and the bottom of the
/// file), the order of keys in each mapping and of the elements of each list.
///
/// Places are paths of keys and element names (`$.products[coins.100].price.amount`), so that a comment stays with
/// its product wherever the product moves. Not kept: the text's layout (indentation, quoting, flow or block
/// style, blank lines outside comment blocks), comments of what the catalog no longer has, comments inside a
/// value written over several lines.
struct FileLayout {
    /// Comment lines (and blank lines between them) before the first key.
    var header: [String] = []
    /// Comment lines after the last value.
    var footer: [String] = []
    /// Comment lines above a key or an element, by its path, without their indentation.
    var leading: [String: [String]] = [:]
    /// A comment at the end of the line of a key or an element, from its `#`.
    var trailing: [String: String] = [:]
    /// Each mapping's keys, by its path, in the file's order.
    var keyOrder: [String: [String]] = [:]
    /// Each list's element names, by its path, in the file's order.
    var elementOrder: [String: [String]] = [:]

    /// No layout: a file written afresh.
    init() {}

    /// The layout of `text`; `nil` when it is not YAML (a file that cannot be read keeps nothing).
    init?(of text: String) {
        guard let root = try? Yams.compose(yaml: text) else { return nil }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.hasSuffix("\r") ? String($0.dropLast()) : String($0)
        }
        var anchors: [(line: Int, path: String)] = []
        Self.walk(root, path: "$", into: &self, anchors: &anchors)
        let firstLine = anchors.map(\.line).min() ?? lines.count + 1
        header = Self.commentBlock(lines[0..<min(firstLine - 1, lines.count)], keepingLeadingBlanks: false)
        var lastContent = 0
        for (index, line) in lines.enumerated() where !Self.isCommentOrBlank(line) { lastContent = index + 1 }
        if lastContent < lines.count {
            footer = Self.commentBlock(lines[lastContent..<lines.count], keepingLeadingBlanks: false)
            while footer.last == "" { footer.removeLast() }
        }
        var seenLines = Set<Int>()
        for anchor in anchors where anchor.line > firstLine && !seenLines.contains(anchor.line) {
            // The first (outermost) anchor of a line takes the comments above it.
            seenLines.insert(anchor.line)
            // Lines are numbered from 1: the comment lines above are top + 1 ..< anchor.line.
            var top = anchor.line - 1
            while top >= 1, top <= lines.count, Self.isCommentOrBlank(lines[top - 1]) { top -= 1 }
            let block = Self.commentBlock(lines[top..<(anchor.line - 1)], keepingLeadingBlanks: false)
            if !block.isEmpty { leading[anchor.path] = block }
        }
        var innermost: [Int: String] = [:]
        for anchor in anchors { innermost[anchor.line] = anchor.path }
        for (line, path) in innermost where line - 1 < lines.count {
            if let comment = Self.trailingComment(lines[line - 1]) { trailing[path] = comment }
        }
    }

    private static func walk(_ node: Node, path: String, into layout: inout FileLayout,
                             anchors: inout [(line: Int, path: String)]) {
        switch node {
        case .mapping(let mapping):
            var keys: [String] = []
            for (keyNode, value) in mapping {
                guard let key = keyNode.scalar?.string else { continue }
                keys.append(key)
                let keyPath = "\(path).\(key)"
                if let line = keyNode.mark?.line { anchors.append((line, keyPath)) }
                if case .sequence(let sequence) = value {
                    let identityKey = FileValue.identityKey(ofListAt: key)
                    var names: [String] = []
                    for (index, element) in sequence.enumerated() {
                        let name = identityKey.flatMap { element[$0]?.scalar?.string } ?? "#\(index)"
                        names.append(name)
                        let elementPath = "\(keyPath)[\(name)]"
                        if let line = element.mark?.line { anchors.append((line, elementPath)) }
                        walk(element, path: elementPath, into: &layout, anchors: &anchors)
                    }
                    layout.elementOrder[keyPath] = names
                } else {
                    walk(value, path: keyPath, into: &layout, anchors: &anchors)
                }
            }
            layout.keyOrder[path] = keys
        default:
            return
        }
    }

    static func isCommentOrBlank(_ line: String) -> Bool {
        let trimmed = line.drop { $0 == " " || $0 == "\t" }
        return trimmed.isEmpty || trimmed.hasPrefix("#")
    }

    /// The comment lines of `lines`, without indentation, blank lines kept between them but not before them.
    private static func commentBlock(_ lines: ArraySlice<String>, keepingLeadingBlanks: Bool) -> [String] {
        var block = lines.map { String($0.drop { $0 == " " || $0 == "\t" }) }
        while !keepingLeadingBlanks, block.first == "" { block.removeFirst() }
        return block
    }

    /// The comment that ends a line of content: from a `#` outside quotes that follows a space.
    static func trailingComment(_ line: String) -> String? {
        var quote: Character?
        var previous: Character = " "
        var index = line.startIndex
        while index < line.endIndex {
            let character = line[index]
            if let open = quote {
                if character == "\\" && open == "\"" {
                    index = line.index(after: index)
                } else if character == open {
                    quote = nil
                }
            } else if character == "\"" || character == "'" {
                if previous == " " || previous == ":" || previous == "-" || previous == "[" || previous == "{" || previous == "," {
                    quote = character
                }
            } else if character == "#" && (previous == " " || previous == "\t") {
                let comment = String(line[index...])
                return line[..<index].allSatisfy({ $0 == " " || $0 == "\t" }) ? nil : comment
            }
            previous = character
            if index < line.endIndex { index = line.index(after: index) }
        }
        return nil
    }

    // MARK: Applying

    /// `value` at `path` in this layout's order: a mapping's keys as the file had them, then new keys in the
    /// canonical order; a list's elements as the file had them, then new ones in the canonical order.
    func ordered(_ value: FileValue, at path: String, listKey: String? = nil) -> FileValue {
        switch value {
        case .mapping(let pairs):
            let order = keyOrder[path] ?? []
            let sorted = pairs.enumerated().sorted { a, b in
                let ia = order.firstIndex(of: a.element.key) ?? Int.max
                let ib = order.firstIndex(of: b.element.key) ?? Int.max
                return ia != ib ? ia < ib : a.offset < b.offset
            }.map(\.element)
            return .mapping(sorted.map { pair in
                .init(pair.key, ordered(pair.value, at: "\(path).\(pair.key)", listKey: pair.key))
            })
        case .list(let elements):
            let identityKey = listKey.flatMap(FileValue.identityKey(ofListAt:))
            let order = elementOrder[path] ?? []
            let named = elements.enumerated().map { (offset: $0.offset, name: $0.element.identity(identityKey) ?? "#\($0.offset)",
                                                     element: $0.element) }
            let sorted = named.sorted { a, b in
                let ia = order.firstIndex(of: a.name) ?? Int.max
                let ib = order.firstIndex(of: b.name) ?? Int.max
                return ia != ib ? ia < ib : a.offset < b.offset
            }
            return .list(sorted.map { ordered($0.element, at: "\(path)[\($0.name)]") })
        default:
            return value
        }
    }
}
