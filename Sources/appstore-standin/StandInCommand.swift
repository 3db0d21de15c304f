import AppStoreStandIn
import ArgumentParser

/// The stand-in App Store, for tests, the demo and the benchmark.
@main
struct StandInCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "appstore-standin",
        abstract: "A stand-in for the App Store's verifyReceipt and signed data, for tests and demos.",
        subcommands: [
            Serve.self, IssueReceipt.self, ChainCommand.self, SignTransactionCommand.self, NotificationCommand.self,
        ])
}
