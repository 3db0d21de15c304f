/// How a value is read: returns `nil` after logging why it does not fit.
typealias Reading<Value> = (StoreKitJSON, StoreKitJSONPath, IssueLog) -> Value?

/// The value checks shared by every model type.
enum Expect {
    static func string(_ value: StoreKitJSON, at path: StoreKitJSONPath, log: IssueLog) -> String? {
        typed(value.stringValue, "a string", value, at: path, log: log)
    }

    /// A string, or `null` (read as `.some(nil)`): older files write `"referenceName" : null` for a product
    /// that was never given one.
    static func stringOrNull(_ value: StoreKitJSON, at path: StoreKitJSONPath, log: IssueLog) -> String?? {
        if value.isNull { return .some(nil) }
        return string(value, at: path, log: log).map { .some($0) }
    }

    static func bool(_ value: StoreKitJSON, at path: StoreKitJSONPath, log: IssueLog) -> Bool? {
        typed(value.boolValue, "a boolean", value, at: path, log: log)
    }

    /// Accepts `2.0` as 2, since Xcode reads numbers through `NSNumber` and would too.
    static func integer(_ value: StoreKitJSON, at path: StoreKitJSONPath, log: IssueLog) -> Int? {
        typed(value.intValue, "an integer", value, at: path, log: log)
    }

    static func positiveInteger(_ value: StoreKitJSON, at path: StoreKitJSONPath, log: IssueLog) -> Int? {
        integer(value, atLeast: 1, at: path, log: log)
    }

    static func nonNegativeInteger(_ value: StoreKitJSON, at path: StoreKitJSONPath, log: IssueLog) -> Int? {
        integer(value, atLeast: 0, at: path, log: log)
    }

    private static func integer(_ value: StoreKitJSON, atLeast minimum: Int, at path: StoreKitJSONPath,
                                log: IssueLog) -> Int? {
        guard let integer = integer(value, at: path, log: log) else { return nil }
        guard integer >= minimum else {
            log.add("expected an integer of at least \(minimum), found \(integer)", at: path)
            return nil
        }
        return integer
    }

    static func number(_ value: StoreKitJSON, at path: StoreKitJSONPath, log: IssueLog) -> Double? {
        typed(value.doubleValue, "a number", value, at: path, log: log)
    }

    static func object(_ value: StoreKitJSON, at path: StoreKitJSONPath, log: IssueLog) -> StoreKitJSONObject? {
        typed(value.objectValue, "an object", value, at: path, log: log)
    }

    /// `extracted`, or `nil` after logging that `value` is not `expected`.
    private static func typed<Value>(_ extracted: Value?, _ expected: String, _ value: StoreKitJSON,
                                     at path: StoreKitJSONPath, log: IssueLog) -> Value? {
        if extracted == nil { log.typeMismatch(expected: expected, found: value, at: path) }
        return extracted
    }

    /// A price as the format writes it: a string of digits with an optional
    /// fraction (`"99"`, `"2.00"`, `"0.5"`), no sign, currency or grouping.
    /// Kept as text because `Double` cannot hold `0.1` or keep `"2.00"`.
    static func price(_ value: StoreKitJSON, at path: StoreKitJSONPath, log: IssueLog) -> String? {
        guard let text = string(value, at: path, log: log) else { return nil }
        guard isPlainDecimal(text) else {
            log.add(
                "price \(XcodeJSONWriter.quoted(text)) is not a plain non-negative decimal string such as \"0.99\" or \"100\"",
                at: path)
            return nil
        }
        return text
    }

    /// An offer's price: a ``price(_:at:log:)``, or the empty string that Xcode leaves on an offer whose price
    /// was never filled in (kept as written; it is no amount).
    static func offerPrice(_ value: StoreKitJSON, at path: StoreKitJSONPath, log: IssueLog) -> String? {
        if value.stringValue == "" { return "" }
        return price(value, at: path, log: log)
    }

    static func isPlainDecimal(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2 else { return false }
        return parts.allSatisfy { part in
            !part.isEmpty && part.allSatisfy(\.isASCIIDigit)
        }
    }

    /// Reads every element, so that each bad element is reported, not only the first.
    static func array<Element>(of element: @escaping Reading<Element>) -> Reading<[Element]> {
        { value, path, log in
            guard let elements = value.arrayValue else {
                log.typeMismatch(expected: "an array", found: value, at: path)
                return nil
            }
            var result: [Element] = []
            var isComplete = true
            for (index, item) in elements.enumerated() {
                if let read = element(item, path.appending(index), log) {
                    result.append(read)
                } else {
                    isComplete = false
                }
            }
            return isComplete ? result : nil
        }
    }

    static func stringArray(_ value: StoreKitJSON, at path: StoreKitJSONPath, log: IssueLog) -> [String]? {
        array(of: string)(value, path, log)
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isWholeNumber }
}
