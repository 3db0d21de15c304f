import AppStoreStandIn
import ArgumentParser
import Crypto
import Foundation
import PurchaseCore
import SwiftASN1
import X509

#if canImport(Glibc)
import Glibc
#endif

/// `purchases-verify measure`: microseconds per verification, cold (a new cache each time) and warm.
struct Measure: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "measure",
        abstract: "Print microseconds of CPU and wall time per verification, cold and warm, and its parts.")

    @OptionGroup var options: DataOptions

    @Option(help: "How many distinct transactions to verify.")
    var count: Int = 2000

    @Option(help: "How many times the warm loop verifies them all.")
    var rounds: Int = 10

    @Option(help: "How many cold verifications (each with an empty cache).")
    var cold: Int = 200

    func run() async throws {
        let data = try BenchData.load(options, count: count)
        let jws = data.transactions
        print("purchases-verify measure: \(data.source); policy \(data.policy.bundleId), \(options.environment)")
        print("  what                                                     µs wall   µs CPU   count")

        // Cold: every verification parses and verifies the chain (a new, empty cache each time).
        let coldSet = Array(jws.prefix(cold))
        let coldTime = try await Self.time(coldSet.count) {
            for text in coldSet {
                let verifier = SignedDataVerifier(roots: data.roots, cache: VerifiedChainCache())
                _ = try await verifier.verifyTransaction(text, for: data.policy)
            }
        }
        Self.report("cold: full verification (chain + signature + JSON)", coldTime, coldSet.count)

        // Warm: one verifier, its cache filled by a first pass.
        let verifier = SignedDataVerifier(roots: data.roots)
        for text in jws { _ = try await verifier.verifyTransaction(text, for: data.policy) }
        let warm = try await Self.time(jws.count * rounds) {
            for _ in 0..<rounds {
                for text in jws { _ = try await verifier.verifyTransaction(text, for: data.policy) }
            }
        }
        Self.report("warm: verification with the chain cached", warm, jws.count * rounds)

        // The parts of a warm verification, measured alone.
        let parts = jws.map { $0.split(separator: ".").map(String.init) }
        guard let leafText = Self.x5c(ofHeader: parts[0][0]).first,
            let leafDER = Data(base64Encoded: leafText),
            let leafKey = P256.Signing.PublicKey(try Certificate(derEncoded: Array(leafDER)).publicKey)
        else { throw ValidationError("the first transaction has no P-256 leaf in x5c") }
        let es256 = try await Self.time(parts.count * rounds) {
            for _ in 0..<rounds {
                for part in parts {
                    let digest = SHA256.hash(data: Array("\(part[0]).\(part[1])".utf8))
                    let signature = try P256.Signing.ECDSASignature(rawRepresentation: Base64URL.decode(part[2])!)
                    guard leafKey.isValidSignature(signature, for: digest) else { throw ValidationError("bad signature") }
                }
            }
        }
        Self.report("  of which ES256 (SHA-256 of the input, ECDSA verify)", es256, parts.count * rounds)
        let payloads = parts.map { Base64URL.decode($0[1])! }
        let decoder = JSONDecoder()
        let json = try await Self.time(payloads.count * rounds) {
            for _ in 0..<rounds {
                for payload in payloads { _ = try decoder.decode(AppStoreTransaction.self, from: payload) }
            }
        }
        Self.report("  of which decoding the payload's JSON", json, payloads.count * rounds)

        // Two tasks at once through the one verifier and cache: what two cores give.
        let halves = [Array(jws.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)),
                      Array(jws.enumerated().filter { $0.offset % 2 == 1 }.map(\.element))]
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for half in halves {
                group.addTask {
                    for _ in 0..<rounds {
                        for text in half { _ = try await verifier.verifyTransaction(text, for: data.policy) }
                    }
                }
            }
            try await group.waitForAll()
        }
        let elapsed = ContinuousClock.now - start
        let perSecond = Double(jws.count * rounds) / Self.seconds(elapsed)
        print("  warm, 2 tasks at once: \(Int(perSecond)) verifications/s (wall)")
        print("  chains cached: \(verifier.cache.count)")
    }

    /// The `x5c` of a base64url header.
    static func x5c(ofHeader header: String) -> [String] {
        struct Header: Decodable { var x5c: [String]? }
        guard let bytes = Base64URL.decode(header) else { return [] }
        return (try? JSONDecoder().decode(Header.self, from: bytes))?.x5c ?? []
    }

    /// Wall and CPU time of `work`.
    static func time(_ count: Int, _ work: () async throws -> Void) async throws -> (wall: Duration, cpu: Duration) {
        let cpuStart = processCPUTime()
        let start = ContinuousClock.now
        try await work()
        return (ContinuousClock.now - start, processCPUTime() - cpuStart)
    }

    static func report(_ what: String, _ time: (wall: Duration, cpu: Duration), _ count: Int) {
        let wall = seconds(time.wall) * 1e6 / Double(count)
        let cpu = seconds(time.cpu) * 1e6 / Double(count)
        let label = what.padding(toLength: 56, withPad: " ", startingAt: 0)
        print("  \(label) \(String(format: "%7.1f  %7.1f", wall, cpu))   \(count)")
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// CPU time of the whole process so far (every thread).
    static func processCPUTime() -> Duration {
        var spec = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &spec)
        return .seconds(spec.tv_sec) + .nanoseconds(spec.tv_nsec)
    }
}
