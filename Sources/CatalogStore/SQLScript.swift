import Foundation

/// A SQL file cut into its statements.
///
/// PostgresNIO speaks only the extended query protocol, which runs one statement at a time, so a migration
/// file is split at the semicolons that end statements: not those inside quotes, dollar-quoted bodies
/// (`$$ ... $$`, `$fn$ ... $fn$`) or comments.
struct SQLScript {
    let statements: [String]

    init(_ text: String) {
        var statements: [String] = []
        var current = ""
        var index = text.startIndex
        func peek(_ offset: Int = 0) -> Character? {
            guard let position = text.index(index, offsetBy: offset, limitedBy: text.endIndex),
                  position < text.endIndex else { return nil }
            return text[position]
        }
        while index < text.endIndex {
            let character = text[index]
            if character == "-" && peek(1) == "-" {
                // A line comment: skip to the end of the line.
                while index < text.endIndex && text[index] != "\n" { index = text.index(after: index) }
                continue
            }
            if character == "/" && peek(1) == "*" {
                guard let end = text.range(of: "*/", range: text.index(index, offsetBy: 2)..<text.endIndex) else { break }
                index = end.upperBound
                continue
            }
            if character == "'" || character == "\"" {
                // A quoted literal or identifier; a doubled quote inside is an escaped quote.
                current.append(character)
                index = text.index(after: index)
                while index < text.endIndex {
                    current.append(text[index])
                    if text[index] == character {
                        if peek(1) == character {
                            index = text.index(after: index)
                            current.append(text[index])
                        } else {
                            break
                        }
                    }
                    index = text.index(after: index)
                }
                if index < text.endIndex { index = text.index(after: index) }
                continue
            }
            if character == "$", let tag = Self.dollarTag(in: text, at: index) {
                let bodyStart = text.index(index, offsetBy: tag.count)
                let end = text.range(of: tag, range: bodyStart..<text.endIndex)?.upperBound ?? text.endIndex
                current += text[index..<end]
                index = end
                continue
            }
            if character == ";" {
                let statement = current.trimmingWhitespace()
                if !statement.isEmpty { statements.append(statement) }
                current = ""
            } else {
                current.append(character)
            }
            index = text.index(after: index)
        }
        let last = current.trimmingWhitespace()
        if !last.isEmpty { statements.append(last) }
        self.statements = statements
    }

    /// The dollar-quote tag (`$$`, `$body$`) starting at `index`, if one does.
    private static func dollarTag(in text: String, at index: String.Index) -> String? {
        var end = text.index(after: index)
        while end < text.endIndex, text[end] == "_" || (text[end].isASCII && (text[end].isLetter || text[end].isNumber)) {
            end = text.index(after: end)
        }
        guard end < text.endIndex, text[end] == "$" else { return nil }
        let tag = text[index...end]
        // `$1` is a parameter, not a tag: a tag does not start with a digit.
        if let first = tag.dropFirst().first, first.isNumber { return nil }
        return String(tag)
    }
}

extension String {
    fileprivate func trimmingWhitespace() -> String {
        var result = Substring(self)
        while let first = result.first, first.isWhitespace { result = result.dropFirst() }
        while let last = result.last, last.isWhitespace { result = result.dropLast() }
        return String(result)
    }
}
