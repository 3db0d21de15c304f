import CatalogCore
import Foundation
import Logging
import Synchronization

/// Writes each log record as one JSON object per line: `time`, `level`, `logger`, `message`, then the
/// metadata (`requestId` among them for request logs). Nothing the service logs carries a key's token:
/// tokens appear only in `Authorization` headers, which are never logged.
public struct JSONLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let toStandardError: Bool

    /// A handler writing to standard output (a service's logs), or standard error (a command's, whose
    /// standard output is its answer).
    public init(label: String, toStandardError: Bool = false) {
        self.label = label
        self.toStandardError = toStandardError
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields = self.metadata
        if let provided = metadataProvider?.get() { fields.merge(provided) { _, new in new } }
        if let metadata = event.metadata { fields.merge(metadata) { _, new in new } }
        var object: [String: Any] = [
            "time": RFC3339Text.milliseconds(Date()),
            "level": event.level.rawValue, "logger": label, "message": event.message.description,
        ]
        if let error = event.error { object["error"] = String(describing: error) }
        for (key, value) in fields where object[key] == nil { object[key] = Self.json(value) }
        guard var data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        else { return }
        data.append(0x0A)
        Self.output.withLock { _ in (toStandardError ? FileHandle.standardError : FileHandle.standardOutput).write(data) }
    }

    private static let output = Mutex<Void>(())

    private static func json(_ value: Logger.Metadata.Value) -> Any {
        switch value {
        case .string(let text): text
        case .stringConvertible(let value): value.description
        case .array(let values): values.map(json)
        case .dictionary(let values): values.mapValues(json)
        }
    }
}
