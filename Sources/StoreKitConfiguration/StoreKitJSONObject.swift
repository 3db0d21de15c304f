/// A JSON object that remembers the order its keys were read or inserted in.
///
/// Xcode sorts keys when it writes, so the order does not change the output of
/// ``XcodeJSONWriter``; it is kept so that what a file said can be shown and
/// compared as it was written.
public struct StoreKitJSONObject: Sendable, Hashable {
    public private(set) var keys: [String] = []
    private var values: [String: StoreKitJSON] = [:]

    public init() {}

    /// Members in order. A repeated key keeps its first position and its last value.
    public init(_ members: some Sequence<(String, StoreKitJSON)>) {
        for (key, value) in members {
            self[key] = value
        }
    }

    public var count: Int { keys.count }
    public var isEmpty: Bool { keys.isEmpty }

    /// Reads a member, or sets one: a new key goes last, an existing key keeps
    /// its place, and `nil` removes the member.
    public subscript(key: String) -> StoreKitJSON? {
        get { values[key] }
        set {
            guard let newValue else {
                removeValue(forKey: key)
                return
            }
            if values.updateValue(newValue, forKey: key) == nil {
                keys.append(key)
            }
        }
    }

    @discardableResult
    public mutating func removeValue(forKey key: String) -> StoreKitJSON? {
        guard let removed = values.removeValue(forKey: key) else { return nil }
        keys.removeAll { $0 == key }
        return removed
    }

    /// Adds or replaces every member of `other`.
    public mutating func merge(_ other: StoreKitJSONObject) {
        for (key, value) in other {
            self[key] = value
        }
    }

    /// A copy with the members in the order Xcode writes them.
    public func sortedForXcode() -> StoreKitJSONObject {
        StoreKitJSONObject(keys.sorted(by: XcodeJSONWriter.keyPrecedes).map { ($0, values[$0]!) })
    }
}

extension StoreKitJSONObject: Sequence {
    public struct Iterator: IteratorProtocol {
        fileprivate var keys: IndexingIterator<[String]>
        fileprivate let values: [String: StoreKitJSON]

        public mutating func next() -> (key: String, value: StoreKitJSON)? {
            guard let key = keys.next() else { return nil }
            return (key, values[key]!)
        }
    }

    public func makeIterator() -> Iterator {
        Iterator(keys: keys.makeIterator(), values: values)
    }
}

extension StoreKitJSONObject: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, StoreKitJSON)...) {
        self.init(elements)
    }
}

extension StoreKitJSONObject: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Compact JSON with `privateKey` values redacted, as ``StoreKitJSON/description``.
    public var description: String { StoreKitJSON.object(self).description }

    public var debugDescription: String { description }

    /// Members as children, so that `dump` shows them in order and without a `privateKey` value.
    public var customMirror: Mirror {
        let children = keys.map { key -> Mirror.Child in
            let value: Any = StoreKitJSON.redactedKeys.contains(key) ? StoreKitJSON.redactionMarker : values[key]!
            return (label: nil, value: (key: key, value: value))
        }
        return Mirror(self, children: children, displayStyle: .dictionary)
    }
}
