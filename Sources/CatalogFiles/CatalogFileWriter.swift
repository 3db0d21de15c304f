import CatalogCore
import Foundation
import Yams

extension CatalogFile {
    /// The comment that tells editors (the YAML language server) where the file's schema is.
    public static func schemaComment(_ url: String) -> String { "# yaml-language-server: $schema=\(url)" }

    /// The file as YAML, in a stable layout: keys in the canonical order (or the existing file's), two-space
    /// indentation, lists of mappings as `- key: value` blocks, text plain when it reads back as the same text and
    /// double-quoted otherwise, amounts always quoted, one final newline.
    ///
    /// With `existing` (the file's current text), the catalog is written into it: its comments stay with the keys
    /// and elements they were written above (or beside), and its order of keys and elements is kept; new keys and
    /// elements come after, in the canonical order (see ``FileLayout`` for what is not kept). `schemaURL` adds
    /// the schema comment at the top, unless the existing file has one.
    public func yaml(schemaURL: String? = nil, existing: String? = nil) -> String {
        let layout = existing.flatMap(FileLayout.init(of:)) ?? FileLayout()
        var lines: [String] = []
        var header = layout.header
        if let schemaURL, !header.contains(where: { $0.contains("yaml-language-server:") }) {
            header.insert(Self.schemaComment(schemaURL), at: 0)
        }
        lines += header
        var writer = YAMLWriter(layout: layout)
        writer.root(layout.ordered(value, at: "$"))
        lines += writer.lines
        if !layout.footer.isEmpty { lines += [""] + layout.footer }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The file as JSON, two-space indentation, keys in the canonical order (or the existing file's), with
    /// `$schema` first when `schemaURL` is given (editors read it); one final newline.
    public func json(schemaURL: String? = nil, existing: String? = nil) -> String {
        let layout = existing.flatMap(FileLayout.init(of:)) ?? FileLayout()
        var root = layout.ordered(value, at: "$")
        if let schemaURL, case .mapping(let pairs) = root {
            root = .mapping([.init("$schema", .text(schemaURL))] + pairs)
        }
        var text = ""
        JSONWriter.write(root, indent: "", into: &text)
        return text + "\n"
    }
}

/// Writes a ``FileValue`` as block YAML, with a layout's comments.
struct YAMLWriter {
    let layout: FileLayout
    private(set) var lines: [String] = []

    init(layout: FileLayout) {
        self.layout = layout
    }

    mutating func root(_ value: FileValue) {
        guard case .mapping(let pairs) = value else { return }
        for (index, pair) in pairs.enumerated() {
            // The lists of the file start a section each, after a blank line.
            if index > 0, case .list = pair.value, layout.leading["$.\(pair.key)"] == nil { lines.append("") }
            entry(pair.key, pair.value, path: "$.\(pair.key)", indent: "")
        }
    }

    /// One `key: value` entry of a mapping, with the comments of its path.
    private mutating func entry(_ key: String, _ value: FileValue, path: String, indent: String, prefix: String? = nil) {
        if prefix == nil { comments(above: path, indent: indent) }
        let start = (prefix ?? indent) + Self.key(key) + ":"
        switch value {
        case .mapping(let pairs) where !pairs.isEmpty:
            lines.append(start + trailing(path))
            for pair in pairs { entry(pair.key, pair.value, path: "\(path).\(pair.key)", indent: indent + "  ") }
        case .list(let elements) where !elements.isEmpty:
            lines.append(start + trailing(path))
            let identityKey = FileValue.identityKey(ofListAt: key)
            for (index, element) in elements.enumerated() {
                let elementPath = "\(path)[\(element.identity(identityKey) ?? "#\(index)")]"
                self.element(element, path: elementPath, indent: indent + "  ")
            }
        default:
            lines.append(start + " " + Self.scalar(value) + trailing(path))
        }
    }

    /// One element of a list: `- ` and its first key on one line, its other keys below.
    private mutating func element(_ value: FileValue, path: String, indent: String) {
        guard case .mapping(let pairs) = value, let first = pairs.first else {
            comments(above: path, indent: indent)
            lines.append(indent + "- " + Self.scalar(value) + trailing(path))
            return
        }
        // Comments above the element and above its first key both go above the `- ` line.
        comments(above: path, indent: indent)
        comments(above: "\(path).\(first.key)", indent: indent)
        entry(first.key, first.value, path: "\(path).\(first.key)", indent: indent + "  ", prefix: indent + "- ")
        for pair in pairs.dropFirst() { entry(pair.key, pair.value, path: "\(path).\(pair.key)", indent: indent + "  ") }
    }

    private mutating func comments(above path: String, indent: String) {
        for line in layout.leading[path] ?? [] { lines.append(line.isEmpty ? "" : indent + line) }
    }

    private func trailing(_ path: String) -> String {
        layout.trailing[path].map { " " + $0 } ?? ""
    }

    static func key(_ key: String) -> String {
        isPlain(key) ? key : quoted(key)
    }

    static func scalar(_ value: FileValue) -> String {
        switch value {
        case .text(let text): isPlain(text) ? text : quoted(text)
        case .number(let number): String(number)
        case .boolean(let flag): flag ? "true" : "false"
        case .mapping: "{}"
        case .list: "[]"
        }
    }

    /// Whether `text` can be written without quotes and read back as the same text: letters, digits, spaces and
    /// a few marks, starting with a letter or digit, not ending with a space, and not a word YAML reads as
    /// something else (`true`, `no`, `null`, `1.0`, `2026-01-01`).
    static func isPlain(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, let last = text.unicodeScalars.last,
              first.properties.isAlphabetic || first.properties.numericType != nil, last != " " else { return false }
        let marks: Set<Unicode.Scalar> = [" ", ".", "_", "-", "/", "(", ")", "&", "+", ",", "!", "?", "%", "$", "=", "'"]
        guard text.unicodeScalars.allSatisfy({
            $0.properties.isAlphabetic || $0.properties.numericType != nil || marks.contains($0)
        }) else { return false }
        guard !text.contains("  ") else { return false }
        return Resolver.default.resolveTag(of: Node(text)) == .str
    }

    /// Double-quoted: JSON's string literal (YAML's double quotes read JSON's escapes), with the scalars YAML may not
    /// hold as they are in a file (DEL, the C1 controls, the byte-order mark, the line and paragraph separators)
    /// escaped too. JSON leaves those as they are, so no escape of JSON's holds one. The JSON file is written with
    /// it as well: it is read back as YAML.
    static func quoted(_ text: String) -> String {
        var result = ""
        for scalar in CanonicalJSON.quoted(text).unicodeScalars {
            if scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value) || scalar == "\u{FEFF}"
                || scalar == "\u{2028}" || scalar == "\u{2029}" {
                result += String(format: "\\u%04X", scalar.value)
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}

/// Writes a ``FileValue`` as JSON.
enum JSONWriter {
    static func write(_ value: FileValue, indent: String, into text: inout String) {
        switch value {
        case .text(let string): text += YAMLWriter.quoted(string)
        case .number(let number): text += String(number)
        case .boolean(let flag): text += flag ? "true" : "false"
        case .mapping(let pairs) where pairs.isEmpty: text += "{}"
        case .list(let elements) where elements.isEmpty: text += "[]"
        case .mapping(let pairs):
            text += "{\n"
            for (index, pair) in pairs.enumerated() {
                text += indent + "  " + YAMLWriter.quoted(pair.key) + ": "
                write(pair.value, indent: indent + "  ", into: &text)
                text += index == pairs.count - 1 ? "\n" : ",\n"
            }
            text += indent + "}"
        case .list(let elements):
            text += "[\n"
            for (index, element) in elements.enumerated() {
                text += indent + "  "
                write(element, indent: indent + "  ", into: &text)
                text += index == elements.count - 1 ? "\n" : ",\n"
            }
            text += indent + "]"
        }
    }
}
