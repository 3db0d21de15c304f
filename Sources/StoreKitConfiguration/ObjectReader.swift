/// Reads the members of one JSON object into a model type.
///
/// Every read logs its problem and returns `nil`, so a model initialiser can
/// read all of its keys before it gives up, and the caller sees every issue.
struct ObjectReader {
    let object: StoreKitJSONObject
    let path: StoreKitJSONPath
    let log: IssueLog
    private let modeledKeys: Set<String>

    /// Fails, with an issue logged, when `value` is not an object.
    ///
    /// `modeledKeys` are the keys the model type reads itself; the others are
    /// kept in ``unknownKeys``. A key that differs from a modeled one only by
    /// surrounding whitespace or letter case is an error: it is a hand edit
    /// gone wrong, and Xcode would not see the key the writer meant.
    /// `otherKnownKeys` are kept raw but checked for look-alikes in the same way.
    init?(_ value: StoreKitJSON, at path: StoreKitJSONPath, log: IssueLog, modeledKeys: [String], otherKnownKeys: [String] = []) {
        guard let object = Expect.object(value, at: path, log: log) else { return nil }
        self.object = object
        self.path = path
        self.log = log
        self.modeledKeys = Set(modeledKeys)
        Self.reportLookAlikeKeys(in: object, at: path, knownKeys: modeledKeys + otherKnownKeys, log: log)
    }

    /// Members whose keys the model type does not read, in file order.
    var unknownKeys: StoreKitJSONObject {
        StoreKitJSONObject(object.filter { !modeledKeys.contains($0.key) }.map { ($0.key, $0.value) })
    }

    /// The value of a key that must be present.
    func required<Value>(_ key: String, _ read: Reading<Value>) -> Value? {
        guard let value = object[key] else {
            log.add("missing required key \(XcodeJSONWriter.quoted(key))", at: path.appending(key))
            return nil
        }
        return read(value, path.appending(key), log)
    }

    /// The value of a key that may be absent; `nil` when absent or invalid.
    func optional<Value>(_ key: String, _ read: Reading<Value>) -> Value? {
        guard let value = object[key] else { return nil }
        return read(value, path.appending(key), log)
    }

    static func reportLookAlikeKeys(in object: StoreKitJSONObject, at path: StoreKitJSONPath, knownKeys: [String], log: IssueLog) {
        for key in object.keys where !knownKeys.contains(key) {
            let normalized = key.trimmingWhitespace().lowercased()
            if let meant = knownKeys.first(where: { $0.lowercased() == normalized }) {
                log.add(
                    "unexpected key \(XcodeJSONWriter.quoted(key)); did you mean \(XcodeJSONWriter.quoted(meant))?",
                    at: path.appending(key))
            }
        }
    }
}

extension String {
    func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let start = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let end = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[start...end])
    }
}
