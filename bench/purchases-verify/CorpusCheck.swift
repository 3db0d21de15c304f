import ArgumentParser
import Foundation
import PurchaseCore

/// `purchases-verify check --data DIR`: the benchmark's transactions verify, each line of its forged corpus
/// is refused (exit 1 otherwise).
struct CorpusCheck: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Verify the benchmark's transactions and refuse every line of its forged corpus.",
        discussion: """
            DIR is what the purchases benchmark's gen_chain.py and gen_transactions.py write (chain/root.pem,
            transactions.jws, forged.jsonl); its root is the only trusted root. Prints each forged line's
            refusal; exits 1 if a transaction is refused or a forged one accepted.
            """)

    @OptionGroup var options: DataOptions

    @Option(help: "Verify at most this many of the transactions.")
    var limit: Int = .max

    private struct Forged: Decodable {
        struct Body: Decodable { let signedTransaction: String }
        let why: String
        let body: Body
    }

    func run() async throws {
        guard let folder = options.data else { throw ValidationError("--data DIR is required") }
        let data = try BenchData.load(options, count: limit)
        let verifier = SignedDataVerifier(roots: data.roots)
        var problems = 0

        var accepted = 0
        for (line, text) in data.transactions.enumerated() {
            do {
                _ = try await verifier.verifyTransaction(text, for: data.policy)
                accepted += 1
            } catch {
                problems += 1
                print("  REFUSED  transactions.jws line \(line + 1): \(error.code): \(error)")
            }
        }
        print("purchases-verify check \(folder): \(accepted) of \(data.transactions.count) transactions verified")

        let corpus = try String(contentsOf: URL(fileURLWithPath: folder).appendingPathComponent("forged.jsonl"), encoding: .utf8)
        let decoder = JSONDecoder()
        var count = 0
        for line in corpus.split(separator: "\n") {
            let forged = try decoder.decode(Forged.self, from: Data(line.utf8))
            count += 1
            do {
                let verified = try await verifier.verifyTransaction(forged.body.signedTransaction, for: data.policy)
                problems += 1
                print("  ACCEPTED  \(forged.why)  ->  transaction \(verified.payload.transactionId ?? "?")")
            } catch {
                print("  refused   \(forged.why)  ->  \(error.code): \(error)")
            }
        }
        print("purchases-verify check: \(count) forged, " + (problems == 0 ? "every one refused" : "\(problems) PROBLEM(S)"))
        if problems > 0 { throw ExitCode(1) }
    }
}
