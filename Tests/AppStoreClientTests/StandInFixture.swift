import AppStoreClient
import AppStoreStandIn
import Foundation
import Logging
import PurchaseCore
import Synchronization

/// A stand-in App Store on a free local port, and a client pointed at it, for one test.
struct StandInFixture {
    let store: StandInAppStore
    let base: URL

    /// The client settings for this stand-in: its two URLs, and `adjust`'s changes.
    func configuration(_ adjust: (inout AppStoreClientConfiguration) -> Void = { _ in })
        -> AppStoreClientConfiguration {
        var configuration = AppStoreClientConfiguration.standard
        configuration.productionURL = base.appendingPathComponent("verifyReceipt")
        configuration.sandboxURL = base.appendingPathComponent("sandbox/verifyReceipt")
        configuration.timeout = .seconds(5)
        adjust(&configuration)
        return configuration
    }

    /// A receipt of `bundleId` with one purchase of each product.
    func receipt(_ bundleId: String, environment: String = "Production", products: [String] = ["coins.100"],
                 status: Int? = nil, statusCalls: Int? = nil, isRetryable: Bool? = nil) throws -> IssuedReceipt {
        try store.issue(ReceiptOrder(bundleId: bundleId, environment: environment, products: products,
                                     status: status, statusCalls: statusCalls, isRetryable: isRetryable))
    }

    /// Runs `body` with a stand-in that behaves as `behaviour`, and a client made by `adjust`.
    static func run<Result: Sendable>(
        behaviour: StandInBehaviour = .prompt,
        sharedSecrets: [String: String] = [:],
        client adjust: @escaping (inout AppStoreClientConfiguration) -> Void = { _ in },
        _ body: (StandInFixture, VerifyReceiptClient) async throws -> Result
    ) async throws -> Result {
        let store = StandInAppStore(seal: .random(), behaviour: behaviour, sharedSecrets: sharedSecrets)
        var quiet = Logger(label: "appstore-standin")
        quiet.logLevel = .critical
        return try await StandInServer.withRunning(store, logger: quiet) { base in
            let fixture = StandInFixture(store: store, base: base)
            let client = VerifyReceiptClient(configuration: fixture.configuration(adjust))
            do {
                let result = try await body(fixture, client)
                try await client.shutdown()
                return result
            } catch {
                try? await client.shutdown()
                throw error
            }
        }
    }
}

/// Keeps every log line (message and metadata) written through its loggers.
final class CapturedLogs: Sendable {
    private let lines = Mutex<[String]>([])

    /// A logger at trace level that writes here.
    func logger(label: String = "test") -> Logger {
        var logger = Logger(label: label) { _ in CapturingHandler(sink: self) }
        logger.logLevel = .trace
        return logger
    }

    var text: String { lines.withLock { $0.joined(separator: "\n") } }
    var count: Int { lines.withLock { $0.count } }

    fileprivate func append(_ line: String) {
        lines.withLock { $0.append(line) }
    }
}

private struct CapturingHandler: LogHandler {
    let sink: CapturedLogs
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let all = metadata.merging(event.metadata ?? [:]) { $1 }
        sink.append("\(event.level) \(event.message) \(all.sorted { $0.key < $1.key }.map { "\($0)=\($1)" })")
    }
}

/// A test's own bundle id, so that tests never see each other's receipts.
func bundle(_ name: String = #function) -> String {
    "com.example.client." + name.filter { $0.isLetter || $0.isNumber }
}
