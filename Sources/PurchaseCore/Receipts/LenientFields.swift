import Foundation

/// Reading verifyReceipt's JSON as Apple writes it: numbers as strings (`"quantity": "1"`), flags as `"true"`,
/// `"1"` or `1`, and fields that come and go between receipt versions. A field that is absent or of an unexpected
/// type reads as `nil` instead of failing the whole answer: one odd field must not hold a purchase back for days
/// of retries.
///
/// Each reader tries the form Apple writes first (a string), since a try of another type that fails builds a
/// decoding error, and an answer's dozens of fields made that a measurable part of the server's time. A JSON value
/// has one type, so the order of the tries changes no result.
extension KeyedDecodingContainer {
    /// A string, or a number written as one.
    func lenientString(_ key: Key) -> String? {
        if let text = try? decodeIfPresent(String.self, forKey: key) { return text }
        if let number = try? decodeIfPresent(Int64.self, forKey: key) { return String(number) }
        if let number = try? decodeIfPresent(Double.self, forKey: key), number.isFinite {
            return number.rounded() == number && abs(number) < 1e15 ? String(Int64(number)) : String(number)
        }
        return nil
    }

    /// An integer, written as a number or a string of digits.
    func lenientInteger(_ key: Key) -> Int64? {
        if let text = try? decodeIfPresent(String.self, forKey: key) {
            return Int64(text) ?? Int64(text.trimmingCharacters(in: .whitespaces))
        }
        return try? decodeIfPresent(Int64.self, forKey: key)
    }

    /// A flag: `true`/`false`, `1`/`0`, or the same as strings.
    func lenientFlag(_ key: Key) -> Bool? {
        if let text = try? decodeIfPresent(String.self, forKey: key) {
            switch text.lowercased() {
            case "true", "1": return true
            case "false", "0": return false
            default: return nil
            }
        }
        if let flag = try? decodeIfPresent(Bool.self, forKey: key) { return flag }
        if let number = try? decodeIfPresent(Int64.self, forKey: key) { return number != 0 }
        return nil
    }

    /// An array whose unreadable elements are skipped and counted, so that one odd entry does not hide the others.
    func lenientArray<Element: Decodable>(_ key: Key, of _: Element.Type) -> (elements: [Element], skipped: Int)? {
        guard var items = try? nestedUnkeyedContainer(forKey: key) else { return nil }
        var elements: [Element] = []
        var skipped = 0
        while !items.isAtEnd {
            if let element = try? items.decode(Element.self) {
                elements.append(element)
            } else {
                skipped += 1
                // Step over the element that did not decode (a failed decode does not move the cursor).
                guard (try? items.decode(SkippedValue.self)) != nil else { break }
            }
        }
        return (elements, skipped)
    }
}

/// Any JSON value, read and thrown away.
private struct SkippedValue: Decodable {
    init(from decoder: any Decoder) throws {}
}
