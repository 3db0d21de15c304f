import HTTPTypes
import OpenAPIRuntime

/// The paths of the OpenAPI document and the methods each takes, as the generated layer registers them: what
/// tells a request for a method a path does not take (405) from one for a path that does not exist (404).
struct DocumentedRoutes: Sendable {
    private var methods: [[Segment]: Set<HTTPRequest.Method>] = [:]

    private enum Segment: Hashable {
        case literal(Substring)
        case parameter
    }

    /// The routes `register` registers (the generated `registerHandlers(on:)`).
    init(_ register: (any ServerTransport) throws -> Void) rethrows {
        let recorder = Recorder()
        try register(recorder)
        for (method, path) in recorder.routes {
            methods[Self.template(path), default: []].insert(method)
        }
    }

    /// The methods `path` takes, or `nil` when the document has no such path.
    func methods(for path: String) -> Set<HTTPRequest.Method>? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        for (template, methods) in self.methods where template.count == parts.count {
            let matches = zip(template, parts).allSatisfy { segment, part in
                switch segment {
                case .literal(let text): text == part
                case .parameter: !part.isEmpty
                }
            }
            if matches { return methods }
        }
        return nil
    }

    private static func template(_ path: String) -> [Segment] {
        path.split(separator: "/", omittingEmptySubsequences: false).map {
            $0.hasPrefix("{") && $0.hasSuffix("}") ? .parameter : .literal($0)
        }
    }

    /// Notes each registration and serves nothing.
    private final class Recorder: ServerTransport, @unchecked Sendable {
        // Only touched during `init`, on one task.
        var routes: [(HTTPRequest.Method, String)] = []

        func register(
            _ handler: @Sendable @escaping (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?),
            method: HTTPRequest.Method, path: String
        ) throws {
            routes.append((method, path))
        }
    }
}
