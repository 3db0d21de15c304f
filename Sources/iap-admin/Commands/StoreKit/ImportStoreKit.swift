import ArgumentParser
import CatalogAPI
import Foundation

/// `import`: bring a catalog in from a file.
struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Import a catalog from a file (an Xcode StoreKit configuration file).",
        discussion: """
            Example:
              admin-cli import storekit Products.storekit --app com.example.game --dry-run
            """,
        subcommands: [StoreKit.self])
}

extension Import {
    /// `import storekit`: every product and subscription group of a `.storekit` file, all or nothing.
    struct StoreKit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "storekit",
            abstract: "Import an Xcode StoreKit configuration file (.storekit): all of it, or nothing.",
            discussion: """
                Consumables, non-consumables, non-renewing subscriptions and subscription groups with their \
                auto-renewable subscriptions become products of the app in PENDING_DEVELOPER_APPROVAL, each with a \
                history event naming the file. Prices are the file's exact decimals in --currency (files never say \
                theirs). What the catalog does not model (other offers, internal ids, settings) is kept for the \
                export. docs/storekit.md has the whole mapping.

                A file with any problem imports nothing, and every problem is listed with its path in the file \
                (exit 67). Products already in the app with the same content are left as they are; with other \
                content, or with a productId used before, they are conflicts: the file imports nothing (exit 67). \
                --dry-run shows the plan (create, unchanged or conflict per product) and writes nothing; it exits 67 \
                when the import would be refused for conflicts.

                Repairs that keep every productId, type and price are made and listed one by one (and kept in each \
                product's history): a null reference name (older Xcodes) becomes the productId; one reference name \
                given to subscriptions of several groups becomes each one's name and its group's, "Monthly (Pro)". \
                --skip-invalid imports the rest of a file whose products the catalog's rules refuse (or that \
                conflict with the catalog), naming each product left out.

                On a terminal, stderr shows the upload's progress, then the time the server has been checking and \
                writing the products (it does all of them in one transaction, so there is no count to show).

                Examples:
                  admin-cli import storekit Products.storekit --app com.example.game --dry-run
                  admin-cli import storekit Products.storekit --app com.example.game --currency EUR
                """)

        @Argument(help: ArgumentHelp("The .storekit file (- for stdin).", valueName: "file"))
        var file: String

        @Option(help: "The app's bundle id (default: $IAP_APP or the profile's app).")
        var app: String?

        @Option(help: ArgumentHelp("The currency of the file's prices, an ISO 4217 code (default: USD).", valueName: "code"))
        var currency: String?

        @Flag(help: "Show what the import would do, and write nothing.")
        var dryRun = false

        @Flag(help: "Import the rest when products are refused by the catalog's rules or conflict with it; name each one left out.")
        var skipInvalid = false

        @OptionGroup var global: GlobalOptions

        /// The server's limit for a file (`BodyLimit.file` on the server).
        static let maximumSize = 32 << 20

        func run() async throws {
            let session = try Session(global)
            let app = try session.app(app)
            let data = try JSONFile.read(file)
            guard data.count <= Self.maximumSize else {
                throw CommandFailure.badInput(file, "\(ByteSize(data.count)) is more than the server takes (\(ByteSize(Self.maximumSize)))")
            }
            let name = file == "-" ? nil : URL(fileURLWithPath: file).lastPathComponent
            let upload = CountedUpload(data)
            let progress = ImportProgress(upload: upload, products: Self.productCount(data), console: session.console)
            let result: Components.Schemas.StoreKitImport
            do {
                result = try await session.answer({
                    try await $0.importStoreKit(
                        path: .init(bundleId: app),
                        query: .init(dryRun: dryRun, currency: currency, fileName: name, skipInvalid: skipInvalid),
                        body: .binary(upload.body()))
                }) { try read($0, name: name, session: session) }
            } catch {
                await progress.finish()
                throw error
            }
            await progress.finish()
            try await report(result, app: app, session: session)
        }

        /// The import's result, or the failure for the problems the operation documents on their own.
        private func read(_ output: Operations.ImportStoreKit.Output, name: String?, session: Session) throws
            -> Components.Schemas.StoreKitImport
        {
            switch output {
            case .badRequest(let answer):
                // Not JSON: the server says where (line and column).
                let problem = try answer.body.applicationProblemJson
                throw CommandFailure(.badInput, "cannot use \(file): \(problem.detail ?? problem.title)",
                                     body: session.format == .json ? session.lastBody : nil)
            case .conflict(let answer):
                throw session.failure(409, try answer.body.applicationProblemJson)
            case .contentTooLarge(let answer):
                throw session.failure(413, try answer.body.applicationProblemJson)
            case .unsupportedMediaType(let answer):
                throw session.failure(415, try answer.body.applicationProblemJson)
            case .unprocessableContent(let answer):
                let problem = try answer.body.applicationProblemJson
                var failure = session.failure(422, problem)
                let count = (problem.errors ?? []).count
                if count > 0 {
                    failure.message = "\(name ?? "the file") was not imported, none of it: \(self.count(count, "problem")), "
                        + "each at its path in the file"
                }
                throw failure
            default:
                return try output.ok.body.json
            }
        }

        /// Prints what the import did (or, with --dry-run, would do).
        private func report(_ result: Components.Schemas.StoreKitImport, app: String, session: Session) async throws {
            let console = session.console
            let summary = result.summary
            let conflicts = result.products.filter { $0.outcome == .conflict }
            let created = result.products.filter { $0.outcome == .create }.map(\.productId)
            await session.show(identifiers: created) {
                for warning in result.warnings {
                    console.note(console.paintError("warning:", .yellow) + " \(warning.field): \(warning.message)")
                }
                for repair in result.repairs ?? [] {
                    console.note(console.paintError("repaired:", .cyan) + " \(repair.path): \(repair.message)")
                }
                for skipped in result.skipped ?? [] {
                    let problems = skipped.problems.map { "\($0.field): \($0.message)" }.joined(separator: "; ")
                    console.note(console.paintError("skipped:", .yellow) + " \(skipped.path)"
                        + "\(skipped.productId.map { " \($0)" } ?? ""): \(problems)")
                }
                if result.dryRun {
                    var table = Table("PATH", "PRODUCT ID", "TYPE", "PLAN", "REASON")
                    for product in result.products {
                        let style: Style? = switch product.outcome {
                        case .create: .green
                        case .unchanged: nil
                        case .conflict: .red
                        }
                        table.add(Table.Cell(product.path), Table.Cell(product.productId), Table.Cell(product._type.rawValue),
                                  Table.Cell(product.outcome.rawValue, style), Table.Cell(product.reason ?? ""))
                    }
                    table.print(on: console)
                }
                let groups = "\(count(summary.subscriptionGroupsCreated, "subscription group")) "
                    + "\(result.dryRun ? "to create" : "created"), \(summary.subscriptionGroupsExisting) existing"
                let types = [("consumable", summary.byType.consumable), ("non-consumable", summary.byType.nonConsumable),
                             ("auto-renewable", summary.byType.autoRenewableSubscription),
                             ("non-renewing", summary.byType.nonRenewingSubscription)]
                    .filter { $0.1 > 0 }.map { "\($0.1) \($0.0)" }.joined(separator: ", ")
                let repairs = (summary.repaired ?? 0) > 0 ? "; \(count(summary.repaired ?? 0, "repair")) made" : ""
                let skipped = (summary.skipped ?? 0) > 0
                    ? "; \(count(summary.skipped ?? 0, "product")) \(result.dryRun ? "to skip" : "skipped")" : ""
                if result.dryRun {
                    console.print("Dry run, nothing written: of \(count(summary.products, "product")) in \(result.fileName ?? "the file") "
                        + "(\(types.isEmpty ? "none" : types)), \(summary.create) to create, \(summary.unchanged) unchanged, "
                        + "\(summary.conflict) in conflict; \(groups)\(repairs)\(skipped). Prices in \(result.currency).")
                } else {
                    console.print("Imported \(result.fileName ?? "the file") into \(app): \(count(summary.create, "product")) created "
                        + "in PENDING_DEVELOPER_APPROVAL, \(summary.unchanged) unchanged, of \(summary.products) in the file "
                        + "(\(types.isEmpty ? "none" : types)); \(groups)\(repairs)\(skipped). Prices in \(result.currency).")
                }
            }
            guard conflicts.isEmpty else {
                // Only a dry run gets here with conflicts: the import itself would be refused with 409.
                throw CommandFailure(.refused, "the import would be refused: \(count(conflicts.count, "product")) "
                    + "\(conflicts.count == 1 ? "conflicts" : "conflict") with the catalog",
                    details: conflicts.map { "\($0.path) \($0.productId): \($0.reason ?? "conflict")" })
            }
        }

        private func count(_ number: Int, _ noun: String) -> String {
            "\(number) \(noun)\(number == 1 ? "" : "s")"
        }

        /// The products of a file, for the progress line: `nil` when it does not read (the server will say why).
        static func productCount(_ data: Data) -> Int? {
            guard let file = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else { return nil }
            let groups = file["subscriptionGroups"] as? [[String: Any]] ?? []
            return (file["products"] as? [Any] ?? []).count + (file["nonRenewingSubscriptions"] as? [Any] ?? []).count
                + groups.reduce(0) { $0 + ($1["subscriptions"] as? [Any] ?? []).count }
        }
    }
}

/// What an import shows on stderr while it runs, on a terminal only: a bar of the bytes uploaded, then the
/// seconds the server has been working on the file. Redrawn five times a second by a task of its own.
final class ImportProgress: Sendable {
    private let drawing: Task<Void, Never>?
    private let console: Console

    init(upload: CountedUpload, products: Int?, console: Console) {
        self.console = console
        guard console.errorIsTerminal else {
            drawing = nil
            return
        }
        let what = products.map { "\($0) product\($0 == 1 ? "" : "s")" } ?? "the file"
        let total = upload.file.count
        drawing = Task {
            var uploadedAt: ContinuousClock.Instant?
            while !Task.isCancelled {
                let line: String
                if !upload.isFinished {
                    let width = ProgressBar.width
                    let filled = total == 0 ? width : width * upload.sent / total
                    line = "Uploading \(what): " + String(repeating: "█", count: filled)
                        + String(repeating: "░", count: width - filled) + " \(ByteSize(upload.sent)) of \(ByteSize(total))"
                } else {
                    let since = uploadedAt ?? ContinuousClock.now
                    uploadedAt = since
                    let seconds = Int((ContinuousClock.now - since).components.seconds)
                    line = "Uploaded; the server is checking and writing \(what) in one transaction… \(seconds) s"
                }
                console.noteInline("\r\u{1B}[K" + line)
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
    }

    /// Stops drawing and clears the line.
    func finish() async {
        guard let drawing else { return }
        drawing.cancel()
        await drawing.value
        console.noteInline("\r\u{1B}[K")
    }
}
