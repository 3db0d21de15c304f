import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import PurchaseCore
import Synchronization

/// Asks the App Store's verifyReceipt whether a receipt is real: production first, 21007 → the sandbox,
/// 21008 → production, as DESIGN.md says, and answers with PurchaseCore's ``ReceiptOutcome``.
///
/// Whatever happens on the way (Apple's statuses, HTTP errors, timeouts, refused connections, oversized or
/// unreadable answers) is an outcome, never a thrown error: the caller records it and
/// ``ReceiptSubmissionRule`` decides what follows. Only cancellation of the caller's task throws.
///
/// Bounds: one call takes at most ``AppStoreClientConfiguration/timeout`` (connection, request and the whole
/// answer); at most ``AppStoreClientConfiguration/concurrency`` verifications are in flight (a verification
/// holds its place across the hop to the other endpoint, so calls in flight never exceed it either); at most
/// ``AppStoreClientConfiguration/waitingCallers`` more wait for a place, and beyond them the answer is
/// ``ReceiptRetryReason/clientSaturated`` at once. Redirects are not followed, so the shared secret goes
/// only to the configured addresses.
///
/// Logs: one debug line per call (endpoint, HTTP status, Apple's status, milliseconds), never the receipt, the
/// shared secret or a body.
public final class VerifyReceiptClient: Sendable {
    /// The settings this client was made with.
    public let configuration: AppStoreClientConfiguration
    private let httpClient: HTTPClient
    private let places: InFlightLimit
    private let calls = CallsInFlight()

    /// A client with its own connection pool (one HTTP/1 connection per call in flight, up to
    /// ``AppStoreClientConfiguration/concurrency``); call ``shutdown()`` when done with it.
    public init(configuration: AppStoreClientConfiguration,
                eventLoopGroup: any EventLoopGroup = HTTPClient.defaultEventLoopGroup) {
        self.configuration = configuration
        places = InFlightLimit(limit: configuration.concurrency, waitingLimit: configuration.waitingCallers)
        var settings = HTTPClient.Configuration()
        settings.redirectConfiguration = .disallow
        settings.decompression = .disabled
        // The service bootstraps no tracer: AsyncHTTPClient would make a span that records nothing for every call.
        settings.tracing.tracer = nil
        let timeout = TimeAmount.nanoseconds(configuration.timeout.nanoseconds)
        // The pool retries a refused connection until its connect timeout, then fails with the connection's own
        // error; half the call's timeout leaves that error time to be reported as such, not as a timeout.
        settings.timeout = .init(connect: min(.nanoseconds(timeout.nanoseconds / 2), .seconds(10)), read: timeout)
        settings.connectionPool = .init(idleTimeout: .seconds(60),
                                        concurrentHTTP1ConnectionsPerHostSoftLimit: configuration.concurrency)
        httpClient = HTTPClient(eventLoopGroup: eventLoopGroup, configuration: settings)
    }

    /// Closes the client's connections. Calls after it answer ``ReceiptRetryReason/connectionFailed(_:)``.
    public func shutdown() async throws {
        try await httpClient.shutdown()
    }

    /// Ends every call in flight and refuses every later one: their callers get `CancellationError` at once, and
    /// nothing is decided for them. For stopping: a caller's recording of other outcomes goes on meanwhile.
    public func cancelCalls() {
        calls.cancelAll()
    }

    /// Verifications in flight now (each is one call to the App Store at a time).
    public var inFlight: Int { places.holders }

    /// Callers waiting for a place now.
    public var waiting: Int { places.waiting }

    /// Verifies `receipt` for the app `bundleId`, sending `sharedSecret` as `password`.
    ///
    /// - Parameters:
    ///   - excludeOldTransactions: asks Apple for only the latest renewal of each subscription.
    ///   - endpoint: where the attempt starts; production unless the receipt's environment is known.
    /// - Throws: `CancellationError` only, when the caller's task is cancelled or ``cancelCalls()`` was called
    ///   (nothing is decided then).
    public func verify(_ receipt: ReceiptData, bundleId: String, sharedSecret: AppStoreSharedSecret?,
                       excludeOldTransactions: Bool = false,
                       startingAt endpoint: VerifyReceiptEndpoint = VerifyReceiptAnswerRule.firstEndpoint,
                       logger: Logger) async throws(CancellationError) -> ReceiptOutcome {
        switch await places.enter() {
        case .admitted: break
        case .refused: return .retry(.clientSaturated)
        case .cancelled: throw CancellationError()
        }
        defer { places.leave() }

        let request = VerifyReceiptRequest(receiptData: receipt, password: sharedSecret,
                                           excludeOldTransactions: excludeOldTransactions ? true : nil)
        // Encoding a struct of strings cannot fail; an empty body would be answered 21000 and kept as such.
        let body = ByteBuffer(data: (try? JSONEncoder().encode(request)) ?? Data())
        let rule = VerifyReceiptAnswerRule(bundleId: bundleId)
        var endpoint = endpoint
        var asked: Set<VerifyReceiptEndpoint> = []
        while true {
            asked.insert(endpoint)
            let exchange = try await exchange(body, with: endpoint, logger: logger)
            switch rule.step(after: exchange, from: endpoint, asked: asked) {
            case .ask(let next): endpoint = next
            case .finished(let outcome): return outcome
            }
        }
    }

    /// One call to one endpoint, within the timeout.
    private func exchange(_ body: ByteBuffer, with endpoint: VerifyReceiptEndpoint,
                          logger: Logger) async throws(CancellationError) -> VerifyReceiptExchange {
        let started = ContinuousClock.now
        let exchange = try await call(body, to: endpoint, logger: logger)
        var metadata: Logger.Metadata = [
            "appstore.endpoint": "\(endpoint)",
            "appstore.elapsed_ms": "\((ContinuousClock.now - started).milliseconds)",
        ]
        switch exchange {
        case .answered(let httpStatus, let body):
            metadata["appstore.http_status"] = "\(httpStatus)"
            if let status = try? VerifyReceiptResponse.decode(body).status {
                metadata["appstore.status"] = "\(status.code)"
            }
        case .answerTooLarge: metadata["appstore.failure"] = "answer too large"
        case .timedOut: metadata["appstore.failure"] = "timed out"
        case .connectionFailed(let detail): metadata["appstore.failure"] = "\(detail)"
        }
        logger.debug("verifyReceipt call", metadata: metadata)
        return exchange
    }

    /// Sends the request and reads the whole answer, up to the size limit, by the timeout. Transport errors become
    /// exchanges; only cancellation throws.
    ///
    /// AsyncHTTPClient's `EventLoopFuture` interface rather than its `async` one, for two reasons. Its deadline
    /// covers the whole answer (the `async` one's ends with the head, and a body that trickles in would hold the
    /// call past the timeout), and it holds no task of its own: the caller's task waits on the call's future.
    /// Thousands of calls are in flight at once, and each task and async frame of the other interface was memory
    /// held for seconds per call (docs/performance.md).
    private func call(_ body: ByteBuffer, to endpoint: VerifyReceiptEndpoint,
                      logger: Logger) async throws(CancellationError) -> VerifyReceiptExchange {
        let request: HTTPClient.Request
        do {
            request = try HTTPClient.Request(
                url: configuration.url(of: endpoint), method: .POST,
                headers: ["Content-Type": "application/json", "Accept": "application/json"], body: .byteBuffer(body))
        } catch {
            return .connectionFailed(Self.describe(error))
        }
        // Nothing is sent once the calls are cancelled (a cancellation between here and `add` ends the call there).
        if calls.areCancelled { throw CancellationError() }
        let task = httpClient.execute(
            request: request, delegate: ResponseAccumulator(request: request, maxBodySize: configuration.answerLimit),
            deadline: .now() + .nanoseconds(configuration.timeout.nanoseconds), logger: logger)
        let call = calls.add(task)
        defer { calls.remove(call) }
        do {
            let response = try await withTaskCancellationHandler {
                try await task.futureResult.get()
            } onCancel: {
                task.cancel()
            }
            return .answered(httpStatus: Int(response.status.code), body: response.body.map { Data(buffer: $0) } ?? Data())
        } catch is ResponseAccumulator.ResponseTooBigError {
            return .answerTooLarge(limit: configuration.answerLimit)
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
            // The pool's read timeout is the call's: whichever fires first, the App Store did not answer in time.
            return .timedOut
        } catch {
            if Task.isCancelled || calls.areCancelled { throw CancellationError() }
            return .connectionFailed(Self.describe(error))
        }
    }

    /// The transport's words for a failure, short. They never hold the request: it travels only in the body.
    static func describe(_ error: any Error) -> String {
        let text = String(describing: error)
        return text.count > 200 ? String(text.prefix(200)) + "…" : text
    }
}

/// The client's calls in flight, so that ``VerifyReceiptClient/cancelCalls()`` can end them.
private final class CallsInFlight: Sendable {
    private struct State {
        var tasks: [ObjectIdentifier: HTTPClient.Task<HTTPClient.Response>] = [:]
        var cancelled = false
    }

    private let state = Mutex(State())

    var areCancelled: Bool { state.withLock { $0.cancelled } }

    /// Keeps `task` until ``remove(_:)``; cancels it at once if the calls were cancelled.
    func add(_ task: HTTPClient.Task<HTTPClient.Response>) -> ObjectIdentifier {
        let id = ObjectIdentifier(task)
        let cancelled = state.withLock { state -> Bool in
            guard !state.cancelled else { return true }
            state.tasks[id] = task
            return false
        }
        if cancelled { task.cancel() }
        return id
    }

    func remove(_ id: ObjectIdentifier) {
        _ = state.withLock { $0.tasks.removeValue(forKey: id) }
    }

    func cancelAll() {
        let tasks = state.withLock { state in
            state.cancelled = true
            return Array(state.tasks.values)
        }
        for task in tasks { task.cancel() }
    }
}

extension Duration {
    /// The duration in whole nanoseconds (saturating), for NIO's `TimeAmount`.
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : whole.addingReportingOverflow(attoseconds / 1_000_000_000).partialValue
    }

    /// The duration in whole milliseconds.
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
