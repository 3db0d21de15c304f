import ArgumentParser
import AsyncHTTPClient
import CatalogAPI
import CatalogAPIConventions
import CatalogClient
import Foundation
import HTTPTypes
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime

/// One run of a command against the server: the resolved settings, the typed client, and the console.
/// It turns every way a call can fail (no server, a wrong URL, a refusal) into a ``CommandFailure``.
struct Session: Sendable {
    let console: Console
    let format: OutputFormat
    let endpoint: Endpoint
    let client: Client
    private let recorder: ResponseRecorder

    /// The HTTP client of the process. It gives up at the first failed connection: AsyncHTTPClient's default is
    /// to retry until the request's deadline, which would keep a person waiting a minute for "connection
    /// refused". It lives as long as the process, which ends right after the command, so it is never shut down.
    private static let httpClient: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    /// A session for `options`; `needsKey` commands fail at once, with advice, when no key is configured.
    init(_ options: GlobalOptions, needsKey: Bool = true) throws(CommandFailure) {
        try self.init(endpoint: try Endpoint(options: options), console: Console(noColor: options.noColor),
                      format: options.format, needsKey: needsKey)
    }

    /// A session for settings already resolved.
    init(endpoint: Endpoint, console: Console, format: OutputFormat, needsKey: Bool = true) throws(CommandFailure) {
        self.console = console
        self.format = format
        self.endpoint = endpoint
        if needsKey, endpoint.key == nil {
            throw CommandFailure(.notAuthorized, "no API key is configured",
                                 hint: "give --key, set IAP_KEY, or run: admin-cli login")
        }
        if endpoint.keySource == .profile(endpoint.profileName), ConfigFile.isReadableByOthers(endpoint.configLocation) {
            console.note(console.paintError("warning:", .yellow)
                + " \(endpoint.configLocation.path) holds keys and others may read it; run: chmod 600 \(endpoint.configLocation.path)")
        }
        recorder = ResponseRecorder()
        let transport = AsyncHTTPClientTransport(configuration: .init(client: Self.httpClient))
        client = Client(serverURL: endpoint.url, configuration: .catalog, transport: transport,
                        middlewares: [BearerAuthentication(key: endpoint.key), recorder])
    }

    /// The app to work on: `--app`, else `IAP_APP`, else the profile's.
    func app(_ flag: String?) throws -> String {
        if let flag { return flag }
        if let app = endpoint.app { return app }
        throw ValidationError("which app? Give --app BUNDLE_ID (or set IAP_APP, or login --app)")
    }

    /// Runs one call of the API and reads its answer with `read` (`{ try $0.ok.body.json }`, say): the value, or
    /// the ``CommandFailure`` for the problem details the server answered instead. A failure to reach or
    /// understand the server is thrown.
    func answer<Output: ProblemAnswering, Value>(
        _ operation: (Client) async throws -> Output, _ read: (Output) throws -> Value
    ) async throws(CommandFailure) -> Value {
        try await outcome(operation, read).get()
    }

    /// ``answer(_:_:)`` for a command that goes on after a refusal (`status` reports it, `login` adds its
    /// hint): problem details the server answered are the result's failure instead of being thrown. This is
    /// the one place where an answer becomes a command's value or failure.
    func outcome<Output: ProblemAnswering, Value>(
        _ operation: (Client) async throws -> Output, _ read: (Output) throws -> Value
    ) async throws(CommandFailure) -> Result<Value, CommandFailure> {
        let output = try await call(operation)
        if let problem = try? output.default {
            return .failure(failure(recorder.last?.status ?? 0, problem))
        }
        do {
            return .success(try read(output))
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            throw CommandFailure(.serverError, "the server's answer (HTTP \(recorder.last?.status ?? 0)) was not the one expected: \(error)")
        }
    }

    /// Runs one call of the API, turning failures to reach or understand the server into a ``CommandFailure``.
    private func call<Output: Sendable>(_ operation: (Client) async throws -> Output) async throws(CommandFailure) -> Output {
        do {
            return try await operation(client)
        } catch let error as ClientError {
            throw failure(error)
        } catch let error as CommandFailure {
            throw error
        } catch {
            throw CommandFailure(.serverError, "the request failed: \(error)")
        }
    }

    /// The failure for a problem the server answered.
    private func failure(_ statusCode: Int, _ response: Components.Responses.Problem) -> CommandFailure {
        guard case .applicationProblemJson(let problem) = response.body else {
            return CommandFailure(ExitStatus(httpStatus: statusCode), "the server answered HTTP \(statusCode)")
        }
        return failure(statusCode, problem)
    }

    /// The failure for problem details the server answered (a response the document describes on its own).
    func failure(_ statusCode: Int, _ problem: Components.Schemas.Problem) -> CommandFailure {
        var failure = ProblemReport(problem, statusCode: statusCode).failure
        if failure.status == .notAuthorized, statusCode == 401, let source = endpoint.keySource {
            failure.hint = "the key from \(source) may be wrong, revoked or expired; get a new one and run: admin-cli login"
        }
        if format == .json { failure.body = recorder.last?.body }
        return failure
    }

    /// The body of the latest answer exactly as received (for `--json`).
    var lastBody: Data? { recorder.last?.body }

    /// The HTTP status of the latest answer.
    var lastStatus: Int? { recorder.last?.status }

    /// Prints a command's result in the format asked for; the one place that decides what each format prints:
    /// with `--json`, `json`; with `--quiet`, the `identifiers` one per line; otherwise what `human` prints.
    func show(json: JSONOutput = .latestAnswer, identifiers: [String] = [],
              human: () async throws -> Void) async rethrows {
        switch format {
        case .json:
            let body: Data? = switch json {
            case .latestAnswer: recorder.last?.body
            case .document(let document): document
            case .nothing: nil
            }
            if let body, !body.isEmpty { console.printRaw(body) }
        case .quiet:
            for identifier in identifiers { console.print(identifier) }
        case .human:
            try await human()
        }
    }

    private func failure(_ error: ClientError) -> CommandFailure {
        let origin = "the URL came from \(endpoint.urlSource)"
        guard let response = error.response else {
            return CommandFailure(.unavailable, "cannot reach the IAP Catalog server at \(endpoint.url.absoluteString) "
                + "(\(Self.transportReason(error.underlyingError)))",
                hint: "is it running, and is the URL right? (\(origin); start one with scripts/serve)")
        }
        let answer = recorder.last
        let contentType = answer?.contentType ?? response.headerFields[.contentType] ?? "no content type"
        let status = response.status.code
        // The API answers problem details for every error, a missing route included: anything else is
        // another server (a wrong URL) or a proxy in the way.
        if !contentType.contains("json") || [404, 502, 503, 504].contains(status) {
            return CommandFailure(.unavailable, "the server at \(endpoint.url.absoluteString) answered HTTP \(status) "
                + "(\(contentType)) where the IAP Catalog API was expected",
                hint: "check the URL (\(origin))")
        }
        return CommandFailure(.serverError, "the server's answer (HTTP \(status)) could not be read: "
            + String(error.causeDescription.prefix(300)))
    }

    /// A short reason for a failure to exchange anything with the server.
    private static func transportReason(_ error: any Error) -> String {
        let text = String(describing: error)
        let lowered = text.lowercased()
        if lowered.contains("refused") { return "connection refused" }
        if lowered.contains("timeout") || lowered.contains("timedout") || lowered.contains("timed out") {
            return "timed out"
        }
        if lowered.contains("dns") || lowered.contains("resolve") || lowered.contains("name or service") {
            return "cannot resolve the host name"
        }
        if lowered.contains("ssl") || lowered.contains("tls") || lowered.contains("certificate") {
            return "TLS failed: \(text.prefix(160))"
        }
        if lowered.contains("reset") || lowered.contains("eof") || lowered.contains("closed") {
            return "the connection was closed"
        }
        return String(text.prefix(200))
    }
}
