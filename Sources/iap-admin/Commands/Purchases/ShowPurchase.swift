import ArgumentParser
import CatalogAPI

extension Purchases {
    /// `purchases show`: one submission, its problems and the transactions it brought.
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show a submission: its status, its attempts, its problems and the transactions it brought.",
            discussion: """
                CREDITED says whether a transaction counts for this submission's account (a transaction is \
                credited once: to Apple's appAccountToken when it carries one, else to the first account that \
                brought it); ALREADY RECORDED whether an earlier submission or notification brought it first. \
                --wait N (at most 20) waits up to N seconds for a pending submission's outcome.

                Examples:
                  admin-cli purchases show 0b7f5c7e-2a51-4a43-9d1e-6c2f0a9d4e11 --app com.example.game
                  admin-cli purchases show 0b7f5c7e-2a51-4a43-9d1e-6c2f0a9d4e11 --wait 20 --json
                """)

        @Argument(help: "The submission's id (see purchases list).")
        var id: String

        @Option(help: ArgumentHelp("The app (default: $IAP_APP or the profile's app).", valueName: "bundle-id"))
        var app: String?

        @Option(help: ArgumentHelp("Wait up to this many seconds (0-20) for a pending submission's outcome.", valueName: "seconds"))
        var wait: Int?

        @OptionGroup var global: GlobalOptions

        func validate() throws {
            if let wait, !(0...20).contains(wait) { throw ValidationError("--wait must be 0 to 20 seconds") }
        }

        func run() async throws {
            let session = try Session(global)
            let app = try session.app(app)
            let submission = try await session.answer({
                try await $0.getSubmission(path: .init(bundleId: app, submissionId: id), query: .init(wait: wait))
            }) { try $0.ok.body.json }
            await session.show(identifiers: [submission.id]) { Purchases.details(submission, session: session) }
        }
    }
}
