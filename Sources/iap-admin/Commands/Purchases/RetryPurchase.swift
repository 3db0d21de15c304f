import ArgumentParser
import CatalogAPI
import Foundation

extension Purchases {
    /// `purchases retry`: a retrying or failed receipt submission, due now.
    struct Retry: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "retry",
            abstract: "Verify a retrying or failed receipt submission now (admin and developer keys).",
            discussion: """
                The submission becomes retrying and due at once: the next free worker asks the App Store again. \
                A failed one gets one more attempt (if that does not decide either, it is failed again). Queued \
                and verifying submissions are on their way, verified and invalid ones are final: those are \
                refused (exit 67). Follow the outcome with `purchases show ID --wait 20`.

                Example:
                  admin-cli purchases retry 0b7f5c7e-2a51-4a43-9d1e-6c2f0a9d4e11 --app com.example.game
                """)

        @Argument(help: "The submission's id (see purchases pending, or purchases list --status failed).")
        var id: String

        @Option(help: ArgumentHelp("The app (default: $IAP_APP or the profile's app).", valueName: "bundle-id"))
        var app: String?

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let session = try Session(global)
            let app = try session.app(app)
            let submission = try await session.answer({
                try await $0.retrySubmission(path: .init(bundleId: app, submissionId: id))
            }) { try $0.ok.body.json }
            let console = session.console
            await session.show(identifiers: [submission.id]) {
                console.print("\(console.paint(submission.id, .bold)): \(submission.status.rawValue), "
                    + "next attempt \(Purchases.nextAttempt(of: submission, now: Date())) "
                    + "(\(submission.attempts) attempt\(submission.attempts == 1 ? "" : "s") so far)")
                console.note(console.paintError("follow it with: admin-cli purchases show \(submission.id) --app \(app) --wait 20", .dim))
            }
        }
    }
}
