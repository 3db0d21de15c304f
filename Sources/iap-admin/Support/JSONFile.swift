import CatalogAPIConventions
import Foundation
import OpenAPIRuntime

/// Input files of JSON (`--file`): read, decoded into the API's own request types, and every failure told as
/// the path and what is wrong at which place in the document, with exit code 65.
enum JSONFile {
    /// The bytes of `path` (`-` is stdin).
    static func read(_ path: String) throws(CommandFailure) -> Data {
        if path == "-" {
            return FileHandle.standardInput.readDataToEndOfFile()
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .badInput(path, "no such file")
        }
        guard !isDirectory.boolValue else { throw .badInput(path, "it is a directory") }
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .badInput(path, "cannot read it (\(error.localizedDescription))")
        }
    }

    /// `data` decoded as `T`, the way the server would read it (RFC 3339 dates).
    static func decode<T: Decodable>(_ type: T.Type, from data: Data, path: String) throws(CommandFailure) -> T {
        do {
            return try decoder.decode(T.self, from: data)
        } catch {
            throw .badInput(path, describe(error))
        }
    }

    /// `data` decoded as `T`, refusing fields `T` does not know: a misspelt optional field would otherwise
    /// vanish silently, and the product would not be what the file says.
    static func decodeStrictly<T: Codable>(_ type: T.Type, from data: Data, path: String) throws(CommandFailure) -> T {
        let value = try decode(T.self, from: data, path: path)
        let unknown: [String]
        do {
            let input = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            let known = try JSONSerialization.jsonObject(with: JSONEncoder().encode(value), options: [.fragmentsAllowed])
            unknown = unknownFields(input, known, path: "")
        } catch {
            throw .badInput(path, describe(error))
        }
        guard unknown.isEmpty else {
            throw .badInput(path, "unknown field\(unknown.count == 1 ? "" : "s") \(unknown.joined(separator: ", "))")
        }
        return value
    }

    /// The paths of `input` that did not survive decoding into the API's types (nulls aside).
    private static func unknownFields(_ input: Any, _ known: Any, path: String) -> [String] {
        if let input = input as? [String: Any], let known = known as? [String: Any] {
            return input.keys.sorted().flatMap { key -> [String] in
                let value = input[key] ?? NSNull()
                if value is NSNull { return [] }
                let child = path.isEmpty ? key : "\(path).\(key)"
                guard let knownValue = known[key] else { return [child] }
                return unknownFields(value, knownValue, path: child)
            }
        }
        if let input = input as? [Any], let known = known as? [Any], input.count == known.count {
            return zip(input, known).enumerated().flatMap { index, pair in
                unknownFields(pair.0, pair.1, path: "\(path)[\(index)]")
            }
        }
        return []
    }

    /// Whether the document's top level is an array (a bulk file) rather than one object.
    static func isArray(_ data: Data) -> Bool {
        data.first { !" \t\r\n".utf8.contains($0) } == UInt8(ascii: "[")
    }

    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            return try RFC3339DateTranscoder().decode(text)
        }
        return decoder
    }()

    /// A decoding error as a person reads it: where in the document, and what is wrong there.
    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        func path(_ keys: [any CodingKey]) -> String {
            let text = DecodingError.jsonPath(keys)
            return text.isEmpty ? "the top level" : text
        }
        switch error {
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            return "not valid JSON" + underlyingReason(context)
        case .dataCorrupted(let context) where error.isUnknownMember:
            return "unknown field \(path(context.codingPath))"
        case .dataCorrupted(let context):
            return "\(path(context.codingPath)): \(context.debugDescription)"
        case .keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key])) is required"
        case .valueNotFound(_, let context):
            return "\(path(context.codingPath)) must not be null"
        case .typeMismatch(let type, let context):
            return "\(path(context.codingPath)) should be \(jsonTypeName(type))"
        @unknown default:
            return "\(error)"
        }
    }

    private static func underlyingReason(_ context: DecodingError.Context) -> String {
        guard let underlying = context.underlyingError as NSError?,
              let detail = underlying.userInfo[NSDebugDescriptionErrorKey] as? String, !detail.isEmpty
        else { return "" }
        return " (\(detail))"
    }

    private static func jsonTypeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is Int.Type, is Double.Type: "a number"
        case is [Any].Type: "an array"
        default: String(describing: type).hasPrefix("Array") ? "an array" : "an object"
        }
    }
}
