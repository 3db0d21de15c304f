import AppStoreStandIn
import ArgumentParser
import Foundation
import Hummingbird
import Logging
import PurchaseCore

/// `appstore-standin serve`: verifyReceipt for the receipts the stand-in issues, over HTTP.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve verifyReceipt (production and sandbox) and the stand-in's control routes.",
        discussion: """
            Production's verifyReceipt is /verifyReceipt and the sandbox's /sandbox/verifyReceipt, so that one \
            process stands in for both of Apple's addresses:

              appstore-standin serve --port 8091 --latency 3000-6000 --secret-file .data/standin.secret
              APPSTORE_VERIFY_RECEIPT_PRODUCTION_URL=http://127.0.0.1:8091/verifyReceipt \\
              APPSTORE_VERIFY_RECEIPT_SANDBOX_URL=http://127.0.0.1:8091/sandbox/verifyReceipt iap-server serve

            Receipts: POST /standin/receipts, or `appstore-standin receipt` with the same --secret-file. \
            Behaviour at run time: POST /standin/control {"latencyMs": [3000, 6000], "outage": "unavailable", \
            "outageSeconds": 60}. Counts: GET /standin/verifications. docs/purchases.md has the rest.
            """)

    @Option(help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on (0: any free port, printed at start).")
    var port = 8091

    @Option(help: "Latency of each verifyReceipt call in milliseconds: 4000, or a range such as 3000-6000.")
    var latency = "0"

    @Option(help: "Start in an outage: none, unavailable (HTTP 503) or drop (connections closed unanswered).")
    var outage = StandInBehaviour.Outage.none

    @Option(help: "End the start-up outage after this many seconds.")
    var outageSeconds: Double?

    @Option(help: """
        File whose bytes (16 or more) seal receipts; the same file lets `receipt` issue them. Default: a random         secret, so only receipts issued by this process's route verify.
        """)
    var secretFile: String?

    @Option(help: "File of `bundleId=sharedSecret` lines: receipts of these apps need that password (else 21004).")
    var sharedSecretsFile: String?

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel = Logger.Level.info

    func validate() throws {
        guard StandInBehaviour.latency(latency) != nil else {
            throw ValidationError("--latency must be milliseconds, such as 4000 or 3000-6000")
        }
        if let outageSeconds, !(outageSeconds > 0) { throw ValidationError("--outage-seconds must be above 0") }
        guard (0...65535).contains(port) else { throw ValidationError("--port \(port) is out of range") }
    }

    func run() async throws {
        let seal: ReceiptSeal
        if let secretFile {
            do { seal = try ReceiptSeal.load(secretFile: secretFile) } catch { throw ValidationError(error.description) }
        } else {
            seal = .random()
        }
        let secrets = try sharedSecretsFile.map(Self.sharedSecrets(in:)) ?? [:]
        var behaviour = StandInBehaviour.prompt
        behaviour.latencyMs = StandInBehaviour.latency(latency) ?? 0...0
        behaviour = BehaviourChange(outage: outage, outageSeconds: outageSeconds).applied(to: behaviour)
        let store = StandInAppStore(seal: seal, behaviour: behaviour, sharedSecrets: secrets)

        var logger = Logger(label: "appstore-standin")
        logger.logLevel = logLevel
        let host = host
        let app = StandInServer.application(store: store, host: host, port: port, logger: logger) { port in
            // Written at once, not buffered: scripts wait for this line to know the port.
            let line = "appstore-standin serving on http://\(host):\(port) "
                + "(production /verifyReceipt, sandbox /sandbox/verifyReceipt)\n"
            FileHandle.standardOutput.write(Data(line.utf8))
        }
        try await app.runService()
    }

    /// Reads `bundleId=sharedSecret` lines (blank lines and `#` comments skipped).
    static func sharedSecrets(in path: String) throws -> [String: String] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw ValidationError("cannot read --shared-secrets-file \(path)")
        }
        var secrets: [String: String] = [:]
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            guard let equals = trimmed.firstIndex(of: "="), equals != trimmed.startIndex,
                  trimmed.index(after: equals) != trimmed.endIndex
            else {
                // The line is not echoed: it may hold a secret.
                throw ValidationError("--shared-secrets-file line \(number + 1) is not bundleId=sharedSecret")
            }
            secrets[String(trimmed[..<equals])] = String(trimmed[trimmed.index(after: equals)...])
        }
        return secrets
    }
}

extension StandInBehaviour.Outage: ExpressibleByArgument {}
extension Logger.Level: @retroactive ExpressibleByArgument {}
