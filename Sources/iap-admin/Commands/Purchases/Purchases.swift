import ArgumentParser
import CatalogAPI
import Foundation

/// `purchases`: what client apps submitted to prove a purchase, and how its verification went.
struct Purchases: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List, show and retry purchase submissions: what client apps sent, and whether it verified.",
        discussion: """
            A submission is one proof a client app sent for one account: a signed transaction (verified as it \
            arrives) or an app receipt (queued, then verified with the App Store in the background). Statuses: \
            queued (stored, not tried yet), verifying (being asked now), retrying (an attempt did not decide: it \
            is tried again at its next attempt), verified (its transactions are in the ledger), invalid (will \
            never verify), failed (undecided within the retry period: retry it by hand). The app comes from \
            --app, $IAP_APP or the profile.

            Examples:
              admin-cli purchases list --status invalid
              admin-cli purchases pending
              admin-cli purchases show 0b7f5c7e-2a51-4a43-9d1e-6c2f0a9d4e11
              admin-cli purchases retry 0b7f5c7e-2a51-4a43-9d1e-6c2f0a9d4e11
            """,
        subcommands: [List.self, Show.self, Pending.self, Retry.self])

    /// Submissions as a table, in the order given; `pending` shows when each is tried next and why the last
    /// attempt did not decide, instead of the environment and the account.
    static func table(_ submissions: [Components.Schemas.PurchaseSubmission], pending: Bool,
                      now: Date = Date()) -> Table {
        var table = pending ? Table("ID", "STATUS", "KIND", "ATTEMPTS", "NEXT ATTEMPT", "CREATED", "LAST PROBLEM")
                            : Table("ID", "STATUS", "KIND", "ENVIRONMENT", "ATTEMPTS", "CREATED", "ACCOUNT")
        for submission in submissions {
            var cells = [Table.Cell(submission.id), status(submission.status), Table.Cell(kind(submission.kind))]
            if pending {
                cells += [Table.Cell(String(submission.attempts)), Table.Cell(nextAttempt(of: submission, now: now)),
                          Table.Cell(Display.time(submission.createdAt)), Table.Cell(submission.problems.last ?? "-")]
            } else {
                cells += [Table.Cell(submission.environment?.rawValue ?? "-"), Table.Cell(String(submission.attempts)),
                          Table.Cell(Display.time(submission.createdAt)), Table.Cell(submission.accountToken ?? "-")]
            }
            table.add(cells)
        }
        return table
    }

    /// One submission in detail, then the transactions it brought into the ledger.
    static func details(_ submission: Components.Schemas.PurchaseSubmission, session: Session, now: Date = Date()) {
        let console = session.console
        var details = Details()
        details.add("Submission", submission.id)
        details.add("Kind", kind(submission.kind))
        details.add("Status", console.paint(submission.status.rawValue, style(of: submission.status)))
        details.add("Account", submission.accountToken ?? "-")
        details.add("Environment", submission.environment?.rawValue ?? "-")
        details.add("Attempts", String(submission.attempts))
        if isPending(submission.status) { details.add("Next attempt", nextAttempt(of: submission, now: now)) }
        details.add("Apple status", submission.appleStatus.map(String.init))
        details.add("Created", Display.time(submission.createdAt))
        details.add("Updated", Display.time(submission.updatedAt))
        details.add("Finished", submission.finishedAt.map(Display.time))
        details.print(on: console)
        if !submission.problems.isEmpty {
            console.print()
            console.print(console.paint("Problems", .bold))
            for problem in submission.problems { console.print("  " + problem) }
        }
        guard !submission.transactions.isEmpty else { return }
        console.print()
        var table = Table("TRANSACTION ID", "ENVIRONMENT", "PRODUCT", "QTY", "PRICE", "PURCHASED", "CREDITED", "ALREADY RECORDED")
        for transaction in submission.transactions {
            table.add(Table.Cell(transaction.transactionId), Table.Cell(transaction.environment.rawValue),
                      Table.Cell(transaction.productId), Table.Cell(String(transaction.quantity)),
                      Table.Cell(Display.price(transaction.price)), Table.Cell(Display.time(transaction.purchaseDate)),
                      transaction.credited.map { Table.Cell(Display.yesNo($0), $0 ? .green : .yellow) } ?? Table.Cell("-"),
                      Table.Cell(transaction.alreadyRecorded.map(Display.yesNo) ?? "-"))
        }
        table.print(on: console)
    }

    /// Not decided yet: queued, verifying or retrying.
    static func isPending(_ status: Components.Schemas.SubmissionStatus) -> Bool {
        switch status {
        case .queued, .verifying, .retrying: true
        case .verified, .invalid, .failed: false
        }
    }

    static func status(_ status: Components.Schemas.SubmissionStatus) -> Table.Cell {
        Table.Cell(status.rawValue, style(of: status))
    }

    /// Verified green, being worked on blue, waiting for another attempt yellow, never credited red.
    static func style(of status: Components.Schemas.SubmissionStatus) -> Style {
        switch status {
        case .verified: .green
        case .queued, .verifying: .blue
        case .retrying: .yellow
        case .invalid, .failed: .red
        }
    }

    static func kind(_ kind: Components.Schemas.SubmissionKind) -> String {
        switch kind {
        case .signedTransaction: "signed transaction"
        case .receipt: "receipt"
        }
    }

    /// When a pending submission is tried next: its time and how far off it is, or that it is being tried now.
    static func nextAttempt(of submission: Components.Schemas.PurchaseSubmission, now: Date) -> String {
        if submission.status == .verifying { return "now (verifying)" }
        guard let next = submission.nextAttemptAt else { return "-" }
        let seconds = Int(next.timeIntervalSince(now).rounded(.up))
        return Display.time(next) + (seconds <= 0 ? " (due)" : " (in \(duration(seconds: seconds)))")
    }

    /// A wait as people say it: 45s, 3m 20s, 2h 5m, 3d 4h.
    static func duration(seconds: Int) -> String {
        switch seconds {
        case ..<60: "\(seconds)s"
        case ..<3600: seconds % 60 == 0 ? "\(seconds / 60)m" : "\(seconds / 60)m \(seconds % 60)s"
        case ..<86_400: "\(seconds / 3600)h \(seconds % 3600 / 60)m"
        default: "\(seconds / 86_400)d \(seconds % 86_400 / 3600)h"
        }
    }
}
