import AsyncHTTPClient
import CatalogCore
import Logging
import NIOCore
import NIOHTTP1
import Synchronization

/// The bounds of each delivery attempt, and the addresses deliveries may reach.
public struct WebhookSenderSettings: Sendable {
    /// Which addresses a webhook may reach (the operator's allowances; docs/operations.md).
    public var policy: WebhookAddressPolicy
    /// How long connecting may take.
    public var connectTimeout: Duration = .seconds(5)
    /// How long a whole attempt may take: connecting, sending and the whole answer.
    public var timeout: Duration = .seconds(15)
    /// How much of an answer is read; the rest is not (the connection is closed). Receivers need answer nothing.
    public var answerLimit = 64 * 1024
    /// How long what a name resolved to is used before it is asked again. Whatever it resolved to was judged
    /// before it was used, so a cached answer never reaches an address the policy refuses.
    public var resolutionTTL: Duration = .seconds(10)

    public init(policy: WebhookAddressPolicy) {
        self.policy = policy
    }
}

/// One message to deliver: the Standard Webhooks `webhook-id`, `webhook-timestamp` (Unix seconds) and body.
public struct WebhookMessage: Sendable {
    public let id: String
    public let timestamp: Int64
    public let body: ByteBuffer

    public init(id: String, timestamp: Int64, body: ByteBuffer) {
        self.id = id
        self.timestamp = timestamp
        self.body = body
    }
}

/// How an attempt ended.
public enum WebhookSendOutcome: Sendable, Equatable {
    /// The receiver answered 2xx.
    case delivered(status: Int)
    /// Another status, no answer, or none in time (a redirect is not followed: it is a failure).
    case failed(status: Int?, reason: String)
    /// Not sent: the host resolved to an address a webhook may not reach.
    case refused(reason: String)
}

/// Delivers signed messages over HTTP with AsyncHTTPClient, to the address it judged: before each attempt the
/// URL's host is resolved (``HostResolver``) and every address judged by the policy; the connection then goes to
/// the judged address (the client's DNS override), with TLS still verifying the certificate for the host name.
/// Each attempt is bounded in time (connect and whole) and in what it reads; redirects are never followed.
///
/// One HTTP client per destination (host and judged address) keeps connections alive between deliveries; a
/// destination whose name now resolves elsewhere gets a new client.
public final class WebhookSender: Sendable {
    public let settings: WebhookSenderSettings
    private let resolver: any HostResolver
    private let logger: Logger

    private struct Destination: Hashable {
        let scheme: WebhookURL.Scheme
        let host: String
        let port: Int
        let address: IPAddress
    }

    private struct State {
        var clients: [Destination: HTTPClient] = [:]
        var resolved: [String: (addresses: [IPAddress], at: ContinuousClock.Instant)] = [:]
        var closed = false
    }

    private let state = Mutex(State())
    static let maximumClients = 256

    public init(settings: WebhookSenderSettings, resolver: any HostResolver = SystemHostResolver(), logger: Logger) {
        self.settings = settings
        self.resolver = resolver
        self.logger = logger
    }

    /// Closes every connection; attempts after it fail.
    public func shutdown() async {
        let clients = state.withLock { state in
            state.closed = true
            defer { state.clients = [:] }
            return Array(state.clients.values)
        }
        for client in clients { try? await client.shutdown() }
    }

    /// The addresses `url` may be delivered to now, or why it may not: for the endpoint's creation, and before
    /// every attempt.
    public func judge(_ url: WebhookURL) async -> Result<[IPAddress], WebhookRefusal> {
        let addresses: [IPAddress]
        if let literal = url.literalAddress {
            addresses = [literal]
        } else if let cached = state.withLock({ $0.resolved[url.host] }),
                  ContinuousClock.now - cached.at < settings.resolutionTTL {
            addresses = cached.addresses
        } else {
            do {
                addresses = try await resolver.addresses(of: url.host)
            } catch {
                return .failure(WebhookRefusal(reason: "\(url.host) does not resolve", resolved: false))
            }
            state.withLock { $0.resolved[url.host] = (addresses, ContinuousClock.now) }
        }
        if let refusal = settings.policy.refusal(of: addresses, for: url) {
            return .failure(WebhookRefusal(reason: refusal, resolved: true))
        }
        return .success(addresses)
    }

    /// Sends `message` to `url`, signed with `secret`.
    public func send(_ message: WebhookMessage, to url: WebhookURL, secret: WebhookSecret) async -> WebhookSendOutcome {
        let addresses: [IPAddress]
        switch await judge(url) {
        case .success(let judged): addresses = judged
        case .failure(let refusal):
            return refusal.resolved ? .refused(reason: refusal.reason) : .failed(status: nil, reason: refusal.reason)
        }
        guard let client = client(for: url, address: addresses[0]) else {
            return .failed(status: nil, reason: "the sender is shut down")
        }
        var request = HTTPClientRequest(url: url.description)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: "iap-catalog-webhooks")
        request.headers.add(name: "webhook-id", value: message.id)
        request.headers.add(name: "webhook-timestamp", value: String(message.timestamp))
        request.headers.add(name: "webhook-signature", value: WebhookSignature.sign(
            id: message.id, timestamp: message.timestamp, body: message.body.readableBytesView, secret: secret))
        request.body = .bytes(message.body)
        let timeout = settings.timeout
        // The attempt's one bound: the client's deadline covers it until the answer's head, ``readAnswer`` after.
        let deadline = NIODeadline.now() + .nanoseconds(timeout.nanoseconds)
        do {
            let response = try await client.execute(request, deadline: deadline, logger: logger)
            let status = Int(response.status.code)
            // An answer without a body (204, or a length of 0) has nothing left to wait for.
            if status != 204 && response.headers.first(name: "Content-Length") != "0",
               let failure = await Self.readAnswer(response.body, until: deadline, limit: settings.answerLimit,
                                                   timeout: timeout, on: client.eventLoopGroup) {
                return failure
            }
            return (200..<300).contains(status)
                ? .delivered(status: status) : .failed(status: status, reason: "answered \(status)")
        } catch {
            return .failed(status: nil, reason: Self.describe(error, timeout: timeout))
        }
    }

    /// Reads `body` up to `limit` bytes by `deadline` (a receiver need answer nothing, and may not make us read
    /// more: what is left unread closes the connection); answers why the attempt failed, or nil.
    private static func readAnswer(_ body: HTTPClientResponse.Body, until deadline: NIODeadline, limit: Int,
                                   timeout: Duration, on loops: any EventLoopGroup) async -> WebhookSendOutcome? {
        await withTaskGroup(of: WebhookSendOutcome?.self) { group in
            group.addTask {
                do {
                    var read = 0
                    for try await chunk in body {
                        read += chunk.readableBytes
                        if read > limit { break }
                    }
                    return nil
                } catch {
                    return .failed(status: nil, reason: describe(error, timeout: timeout))
                }
            }
            group.addTask {
                // An event loop's timer, not Task.sleep: a cancelled sleep's timer stays queued in the runtime until
                // it would have fired, so with thousands of attempts a second tens of thousands of them waited there
                // (docs/decisions.md, "An attempt has one deadline"). This one leaves at once.
                let timer = loops.any().scheduleTask(deadline: deadline) {}
                await withTaskCancellationHandler {
                    _ = try? await timer.futureResult.get()
                } onCancel: {
                    timer.cancel()
                }
                return .failed(status: nil, reason: "no answer within \(timeout)")
            }
            // The first to finish decides; the other is cancelled (a cancelled read closes its connection).
            guard let first = await group.next() else { return .failed(status: nil, reason: "cancelled") }
            group.cancelAll()
            return first
        }
    }

    /// The client for `url` at `address`, made when first needed; a client for the same host at another address
    /// (the name now resolves elsewhere) is shut down.
    private func client(for url: WebhookURL, address: IPAddress) -> HTTPClient? {
        let destination = Destination(scheme: url.scheme, host: url.host, port: url.port, address: address)
        let (client, retired) = state.withLock { state -> (HTTPClient?, [HTTPClient]) in
            guard !state.closed else { return (nil, []) }
            if let client = state.clients[destination] { return (client, []) }
            var retired: [HTTPClient] = []
            for (other, client) in state.clients
            where other.host == destination.host && other.port == destination.port && other.scheme == destination.scheme {
                retired.append(client)
                state.clients[other] = nil
            }
            if state.clients.count >= Self.maximumClients, let some = state.clients.first {
                retired.append(some.value)
                state.clients[some.key] = nil
            }
            var configuration = HTTPClient.Configuration()
            configuration.redirectConfiguration = .disallow
            configuration.decompression = .disabled
            // The service bootstraps no tracer: AsyncHTTPClient would make a span that records nothing, and its
            // attributes, for every attempt (3 % of a delivery's CPU).
            configuration.tracing.tracer = nil
            configuration.timeout = .init(connect: .nanoseconds(settings.connectTimeout.nanoseconds),
                                          read: .nanoseconds(settings.timeout.nanoseconds))
            configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 4)
            if url.literalAddress == nil { configuration.dnsOverride = [url.host: address.description] }
            let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
            state.clients[destination] = client
            return (client, retired)
        }
        if !retired.isEmpty {
            Task { for client in retired { try? await client.shutdown() } }
        }
        return client
    }

    /// The transport's words for a failure, short. They never hold the message: it travels only in the body.
    /// Both of the client's timeouts are the attempt's `timeout` (its deadline, and the read timeout of a
    /// connection with nothing to read), so either is told the same way, whichever fired first.
    static func describe(_ error: any Error, timeout: Duration) -> String {
        if let error = error as? HTTPClientError, error == .deadlineExceeded || error == .readTimeout {
            return "no answer within \(timeout)"
        }
        let text = String(describing: error)
        return text.count > 200 ? String(text.prefix(200)) + "…" : text
    }
}

/// Why a URL may not be delivered to now.
public struct WebhookRefusal: Error, Sendable, Equatable {
    public let reason: String
    /// Whether the name resolved (and an address was refused), rather than not resolving at all.
    public let resolved: Bool
}

extension Duration {
    /// The duration in whole nanoseconds (saturating), for NIO's `TimeAmount`.
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : whole.addingReportingOverflow(attoseconds / 1_000_000_000).partialValue
    }
}
