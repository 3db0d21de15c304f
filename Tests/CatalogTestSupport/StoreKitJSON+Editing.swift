import StoreKitConfiguration

/// Edits of parsed StoreKit files, for tests that make invalid or changed files from the fixtures.
extension StoreKitJSON {
    /// A copy with the value at `path` replaced (the path must exist, but for a last key, which is added).
    public func replacing(_ path: [StoreKitJSONPath.Component], with value: StoreKitJSON) -> StoreKitJSON {
        guard let first = path.first else { return value }
        let rest = Array(path.dropFirst())
        switch (self, first) {
        case (.object(var object), .key(let key)):
            object[key] = (object[key] ?? .null).replacing(rest, with: value)
            return .object(object)
        case (.array(var array), .index(let index)):
            array[index] = array[index].replacing(rest, with: value)
            return .array(array)
        default:
            return self
        }
    }

    public subscript(path: [StoreKitJSONPath.Component]) -> StoreKitJSON? {
        var current: StoreKitJSON? = self
        for component in path {
            switch component {
            case .key(let key): current = current?[key]
            case .index(let index): current = current?[index]
            }
        }
        return current
    }
}
