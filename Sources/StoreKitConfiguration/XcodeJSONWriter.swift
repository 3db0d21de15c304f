import Foundation

/// Writes JSON the way Xcode writes `.storekit` files, so that a file Xcode
/// wrote comes back byte for byte and an exported file produces no diff when
/// Xcode saves it again.
///
/// The rules, as read off real files:
/// - keys sorted case-insensitively (`_storefront` before `_storeKitErrors`);
/// - two-space indent, `" : "` between key and value, no space before a comma;
/// - an empty array or object is written open, with a blank line inside and the
///   closing bracket at the indent of the line that opened it (`[\n\n  ]`);
/// - integers without a fraction, doubles with 17 significant digits (`%.17g`);
/// - raw UTF-8 for non-ASCII, `/` not escaped;
/// - one `\n` at the end of the file.
public enum XcodeJSONWriter {
    /// The file contents for `value`.
    public static func data(for value: StoreKitJSON) -> Data {
        Data(string(for: value).utf8)
    }

    /// The file text for `value`, ending in one newline.
    public static func string(for value: StoreKitJSON) -> String {
        var text = ""
        write(value, indent: "", to: &text)
        text += "\n"
        return text
    }

    /// Compact JSON for `value`, with nothing redacted: for storing a document or a part of one (it may hold a
    /// `privateKey`, so never log it; ``StoreKitJSON/description`` is the form to log).
    public static func compactString(for value: StoreKitJSON) -> String {
        var text = ""
        writeCompact(value, to: &text)
        return text
    }

    private static func writeCompact(_ value: StoreKitJSON, to text: inout String) {
        switch value {
        case .array(let elements):
            text += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { text += "," }
                writeCompact(element, to: &text)
            }
            text += "]"
        case .object(let object):
            text += "{"
            for (index, (key, member)) in object.enumerated() {
                if index > 0 { text += "," }
                text += quoted(key) + ":"
                writeCompact(member, to: &text)
            }
            text += "}"
        default:
            text += scalarText(value)
        }
    }

    /// Whether `first` comes before `second` in Xcode's key order.
    ///
    /// Keys are compared lowercased, by UTF-16 code unit as `NSString` does;
    /// keys that differ only in case are then ordered by their exact text so
    /// the output never depends on the order the keys were read in.
    public static func keyPrecedes(_ first: String, _ second: String) -> Bool {
        let folded = (first.lowercased(), second.lowercased())
        if folded.0 != folded.1 {
            return folded.0.utf16.lexicographicallyPrecedes(folded.1.utf16)
        }
        return first.utf16.lexicographicallyPrecedes(second.utf16)
    }

    private static func write(_ value: StoreKitJSON, indent: String, to text: inout String) {
        let inner = indent + "  "
        switch value {
        case .array(let elements):
            text += "[\n"
            if elements.isEmpty { text += "\n" }
            for (index, element) in elements.enumerated() {
                text += inner
                write(element, indent: inner, to: &text)
                text += index == elements.count - 1 ? "\n" : ",\n"
            }
            text += indent + "]"
        case .object(let object):
            text += "{\n"
            if object.isEmpty { text += "\n" }
            let keys = object.keys.sorted(by: keyPrecedes)
            for (index, key) in keys.enumerated() {
                text += inner + quoted(key) + " : "
                write(object[key]!, indent: inner, to: &text)
                text += index == keys.count - 1 ? "\n" : ",\n"
            }
            text += indent + "}"
        default:
            text += scalarText(value)
        }
    }

    /// The text of a value that is not an array or object.
    ///
    /// A non-finite double, which JSON cannot hold, is written as `null`, as
    /// JavaScript's `JSON.stringify` does; the parser never produces one.
    static func scalarText(_ value: StoreKitJSON) -> String {
        switch value {
        case .null: "null"
        case .bool(let flag): flag ? "true" : "false"
        case .integer(let integer): String(integer)
        case .double(let double): double.isFinite ? String(format: "%.17g", double) : "null"
        case .string(let string): quoted(string)
        case .array, .object: preconditionFailure("containers are written by write(_:indent:to:)")
        }
    }

    /// A JSON string literal: only `"`, `\` and control characters are escaped.
    static func quoted(_ string: String) -> String {
        var result = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\u{08}": result += "\\b"
            case "\u{0C}": result += "\\f"
            case "\u{00}"..."\u{1F}":
                let digits = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - digits.count) + digits
            default:
                result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
