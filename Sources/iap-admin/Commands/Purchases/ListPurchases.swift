import ArgumentParser
import CatalogAPI

extension Purchases {
    /// `purchases list`: an app's submissions, newest first, filtered.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List an app's purchase submissions, newest first.",
            discussion: """
                Filters combine. Shows the first 50 unless --limit or --all say otherwise. A client key sees only \
                the submissions it made.

                Examples:
                  admin-cli purchases list --app com.example.game --status failed --all
                  admin-cli purchases list --account 3f2504e0-4f89-11d3-9a0c-0305e82c3301 --json
                """)

        @OptionGroup var listing: SubmissionListing

        @Option(help: "Only submissions in this status.")
        var status: Components.Schemas.SubmissionStatus?

        func run() async throws {
            try await listing.run(status: status, pending: nil)
        }
    }

    /// `purchases pending`: the submissions not decided yet, and when each is tried next.
    struct Pending: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pending",
            abstract: "List the submissions not decided yet (queued, verifying, retrying) and when each is tried next.",
            discussion: """
                Receipts wait in the verification queue: queued ones are tried as soon as a worker is free, \
                retrying ones at their next attempt (the App Store was slow, down or answered a temporary error; \
                LAST PROBLEM says which), verifying ones are being asked now. Newest first. A submission that \
                stays undecided until the retry period ends becomes failed: see `purchases list --status failed`, \
                and `purchases retry ID` to try one again now.

                Examples:
                  admin-cli purchases pending --app com.example.game
                  admin-cli purchases pending --all --quiet | xargs -n1 admin-cli purchases retry
                """)

        @OptionGroup var listing: SubmissionListing

        func run() async throws {
            try await listing.run(status: nil, pending: true)
        }
    }
}

/// What `purchases list` and `purchases pending` share: the app, the account, the pages and the global options;
/// and how they fetch and print submissions.
struct SubmissionListing: ParsableArguments {
    @Option(help: ArgumentHelp("The app (default: $IAP_APP or the profile's app).", valueName: "bundle-id"))
    var app: String?

    @Option(help: ArgumentHelp("Only this account's submissions: its token (a UUID, or the applicationUsername layout).",
                               valueName: "token"))
    var account: String?

    @OptionGroup var pages: PageOptions

    @OptionGroup var global: GlobalOptions

    /// Fetches the submissions page after page as `pages` asks, and prints them: `pending` ones with their next
    /// attempt and a count per status.
    func run(status: Components.Schemas.SubmissionStatus?, pending: Bool?) async throws {
        let session = try Session(global)
        let app = try session.app(app)
        let (submissions, more) = try await pages.collect(session) { cursor, size in
            let page = try await session.answer({
                try await $0.listSubmissions(path: .init(bundleId: app), query: .init(
                    status: status, pending: pending, accountToken: account, cursor: cursor, limit: size))
            }) { try $0.ok.body.json }
            return (page.items, page.nextCursor)
        }
        let console = session.console
        let pendingOnly = pending == true
        await session.show(json: .nothing, identifiers: submissions.map(\.id)) {
            guard !submissions.isEmpty else {
                return console.note(pendingOnly ? "Nothing pending: every submission is decided." : "No submissions match.")
            }
            Purchases.table(submissions, pending: pendingOnly).print(on: console)
            if pendingOnly {
                let counts = [Components.Schemas.SubmissionStatus.queued, .verifying, .retrying].map { status in
                    "\(submissions.filter { $0.status == status }.count) \(status.rawValue)"
                }
                console.note("\(submissions.count)\(more ? "+" : "") pending: \(counts.joined(separator: ", ")).")
            }
            pages.noteMore(more, shown: submissions.count, noun: "submissions", session: session)
        }
    }
}
