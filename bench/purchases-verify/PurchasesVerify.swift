import ArgumentParser

/// The signed-data verifier measured and checked against the benchmark's data (docs/performance.md,
/// "Signed transactions: verification"). Not a test: figures come from a release build on a quiet machine.
@main
struct PurchasesVerify: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "purchases-verify",
        abstract: "Measure and check PurchaseCore's verification of App Store signed transactions.",
        subcommands: [Measure.self, CorpusCheck.self])
}

/// Where the signed transactions come from.
struct DataOptions: ParsableArguments {
    @Option(help: """
        A folder as the purchases benchmark's setup.sh writes it (chain/root.pem, transactions.jws, \
        forged.jsonl); without it, transactions are signed here by the stand-in.
        """)
    var data: String?

    @Option(help: "The bundle the transactions are for.")
    var bundle: String = "com.example.bench"

    @Option(help: "The environment the app accepts (Production or Sandbox).")
    var environment: String = "Sandbox"
}
