import ArgumentParser
import CatalogAPI

/// `signals`: irregular activity and refunds the ledger noticed, newest first.
struct Signals: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the signals of irregular activity and refunds, newest first, filtered.",
        discussion: """
            sharedTransaction: a transaction credited to one account was brought for another (not credited: both \
            are named). manyStoreAccounts: one account's purchases came from more App Store accounts than the \
            app allows within its window (store-settings set --many-store-accounts-limit, \
            --many-store-accounts-window-hours). refund: the App Store refunded or revoked a transaction. Each is \
            also a signal_raised event in the history. Admin, developer and auditor keys; shows the first 50 \
            unless --limit or --all say otherwise; --quiet prints their ids.

            Examples:
              admin-cli signals --app com.example.game --kind manyStoreAccounts --since 2026-11-01
              admin-cli signals --account 3f2504e0-4f89-41d3-9a0c-0305e82c3301 --all --json
            """)

    @Option(help: ArgumentHelp("The app (default: $IAP_APP or the profile's app).", valueName: "bundle-id"))
    var app: String?

    @Option(help: "Only signals of this kind: sharedTransaction, manyStoreAccounts or refund.")
    var kind: Components.Schemas.SignalKind?

    @Option(help: ArgumentHelp("Only signals naming this account, in either form of its token.", valueName: "token"))
    var account: String?

    @Option(help: ArgumentHelp("Only signals raised at or after this instant: RFC 3339 or a day (in UTC).", valueName: "time"))
    var since: TimeArgument?

    @Option(help: ArgumentHelp("Only signals raised before this instant: RFC 3339 or a day.", valueName: "time"))
    var until: TimeArgument?

    @OptionGroup var pages: PageOptions

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let session = try Session(global)
        let app = try session.app(app)
        let (signals, more) = try await pages.collect(session) { cursor, size in
            try await session.answer({
                try await $0.listSignals(path: .init(bundleId: app),
                                         query: .init(kind: kind, accountToken: account, since: since?.date,
                                                      until: until?.date, cursor: cursor, limit: size))
            }) { output -> ([Components.Schemas.Signal], String?) in
                let page = try output.ok.body.json
                return (page.items, page.nextCursor)
            }
        }
        let console = session.console
        await session.show(json: .nothing, identifiers: signals.map(\.id)) {
            guard !signals.isEmpty else { return console.note("No signals match.") }
            var table = Table("ID", "KIND", "RAISED", "ACCOUNT", "TRANSACTION", "PRODUCT", "DETAIL")
            for signal in signals {
                table.add(Table.Cell(signal.id), Table.Cell(signal.kind.rawValue, signal.kind == .refund ? .red : .yellow),
                          Table.Cell(Display.time(signal.raisedAt)), Table.Cell(signal.accountToken ?? "-"),
                          Table.Cell(signal.transactionId), Table.Cell(signal.productId), Table.Cell(Self.detail(signal)))
            }
            table.print(on: console)
            pages.noteMore(more, shown: signals.count, noun: "signals", session: session)
        }
    }

    /// What the signal says beyond its kind.
    static func detail(_ signal: Components.Schemas.Signal) -> String {
        switch signal.kind {
        case .sharedTransaction:
            "also brought for \(signal.otherAccountToken ?? "?") (not credited)"
        case .manyStoreAccounts:
            "\(signal.storeAccountCount ?? 0) App Store accounts in \(signal.windowHours ?? 0) h (limit \(signal.limit ?? 0))"
        case .refund:
            (signal.revocationReason == 1 ? "an issue in the app" : "another reason")
                + (signal.environment == .production ? "" : ", \(signal.environment.rawValue)")
        }
    }
}
