import ArgumentParser
import CatalogAPI
import CatalogFiles
import Foundation
import OpenAPIRuntime

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `catalog`: the app's catalog as a file kept in the team's repository, pulled, planned and applied.
struct Catalog: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Keep the app's catalog in a file (catalog.yaml): pull it, plan it, apply it.",
        discussion: """
            The file lives in your repository; changes are reviewed as code. `pull` writes the catalog into the \
            file (keeping your comments), `plan` shows what applying it would change, `apply` does exactly that \
            plan, all or nothing. Lifecycle actions (approve, submit, submit-change, ...) stay explicit commands. \
            docs/catalog-files.md has the workflow and the file's format.

            Examples:
              admin-cli catalog pull --out catalog.yaml --app com.example.game
              admin-cli catalog plan catalog.yaml
              admin-cli catalog apply catalog.yaml
            """,
        subcommands: [Pull.self, Plan.self, Apply.self])

    /// The server's limit for a file (`BodyLimit.file` on the server).
    static let maximumSize = 32 << 20

    /// A catalog file given on the command line: its bytes and its name (for the history).
    struct InputFile {
        let path: String
        let data: Data

        var name: String? { path == "-" ? nil : URL(fileURLWithPath: path).lastPathComponent }

        init(_ path: String) throws(CommandFailure) {
            self.path = path
            data = try JSONFile.read(path)
            guard data.count <= Catalog.maximumSize else {
                throw .badInput(path, "\(ByteSize(data.count)) is more than the server takes (\(ByteSize(Catalog.maximumSize)))")
            }
        }
    }

    /// What `plan` and `apply` work on: a file, an app, and whether the products the file leaves out go.
    struct Target: ParsableArguments {
        @Argument(help: ArgumentHelp("The catalog file (- for stdin; apply then needs --yes).", valueName: "file"))
        var file: String

        @Option(help: "The app's bundle id (default: $IAP_APP or the profile's app).")
        var app: String?

        @Flag(help: "Also delete the products the file leaves out (only those never submitted can be); without it they stay.")
        var allowDeletions = false

        /// The session, the app, the file read, and the server's plan of it.
        func plan(_ global: GlobalOptions) async throws
            -> (session: Session, app: String, input: InputFile, plan: Components.Schemas.CatalogPlan)
        {
            let session = try Session(global)
            let app = try session.app(app)
            let input = try InputFile(file)
            return (session, app, input, try await Catalog.plan(input, app: app, allowDeletions: allowDeletions,
                                                                session: session))
        }
    }

    /// Asks the server for the plan of `file`.
    static func plan(_ file: InputFile, app: String, allowDeletions: Bool, session: Session) async throws
        -> Components.Schemas.CatalogPlan
    {
        try await session.answer({
            try await $0.planCatalogFile(path: .init(bundleId: app),
                                         query: .init(allowDeletions: allowDeletions, fileName: file.name),
                                         body: .yaml(HTTPBody(file.data)))
        }) { output in
            switch output {
            case .ok(let answer): return try answer.body.json
            case .badRequest(let answer): throw Self.notACatalogFile(file, try answer.body.applicationProblemJson, session)
            case .unprocessableContent(let answer):
                throw Self.notACatalogFile(file, try answer.body.applicationProblemJson, session)
            case .contentTooLarge(let answer): throw session.failure(413, try answer.body.applicationProblemJson)
            case .unsupportedMediaType(let answer): throw session.failure(415, try answer.body.applicationProblemJson)
            default: return try output.ok.body.json
            }
        }
    }

    /// A file the server could not read as a catalog file: what is wrong, at which path and line (exit 65).
    static func notACatalogFile(_ file: InputFile, _ problem: Components.Schemas.Problem, _ session: Session)
        -> CommandFailure
    {
        let errors = problem.errors ?? []
        return CommandFailure(
            .badInput,
            errors.isEmpty ? "cannot use \(file.path): \(problem.detail ?? problem.title)"
                : "\(file.path) is not a catalog file: \(errors.count) problem\(errors.count == 1 ? "" : "s")",
            details: errors.map { "\($0.field): \($0.message)" },
            hint: errors.isEmpty ? nil : "the format is docs/catalog-files.md (and the schema the file's first line names)",
            body: session.format == .json ? session.lastBody : nil)
    }
}

extension Catalog {
    /// `catalog pull`: the catalog as a file, written into an existing one with its comments kept.
    struct Pull: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the app's catalog as a catalog file (YAML, or JSON for a .json file).",
            discussion: """
                Every subscription group (by reference name) and every product (by productId, with its working \
                revision: the draft while a change is pending), in a stable layout so that diffs stay small. The \
                first line names the file's JSON Schema on the server, for editors.

                With --out naming a file that exists, the catalog is written into it: its comments stay with the \
                keys and products they are written above or beside, and its order of keys and products is kept; \
                what is new comes after. Not kept: the text's layout (indentation, quoting, blank lines outside \
                comment blocks) and comments of products or keys the catalog no longer has. The file is replaced \
                only once the new one is complete.

                Examples:
                  admin-cli catalog pull --app com.example.game > catalog.yaml
                  admin-cli catalog pull --out catalog.yaml
                  admin-cli catalog pull --out catalog.json
                """)

        @Option(help: "The app's bundle id (default: $IAP_APP or the profile's app).")
        var app: String?

        @Option(help: ArgumentHelp("The file to write, or to write into (default: stdout).", valueName: "path"))
        var out: String?

        @Option(name: .customLong("file-format"),
                help: ArgumentHelp("yaml or json (default: json for a --out ending in .json, else yaml).", valueName: "format"))
        var fileFormat: FileFormat?

        @OptionGroup var global: GlobalOptions

        enum FileFormat: String, ExpressibleByArgument, CaseIterable {
            case yaml, json
        }

        func run() async throws {
            let session = try Session(global)
            let app = try session.app(app)
            let text = try await session.answer({ try await $0.getCatalogFile(path: .init(bundleId: app)) }) {
                try $0.ok.body.yaml
            }
            let bytes = try await [UInt8](collecting: text, upTo: Catalog.maximumSize * 4)
            let file: CatalogFile
            do {
                file = try CatalogFile(reading: bytes)
            } catch {
                throw CommandFailure(.serverError, "the server's catalog file could not be read: \(error)")
            }
            let format = fileFormat ?? (out?.lowercased().hasSuffix(".json") == true ? .json : .yaml)
            let existing = out.flatMap { try? String(contentsOfFile: $0, encoding: .utf8) }
            let schemaURL = CatalogFileSchema.url(on: session.endpoint.url.absoluteString)
            let written = format == .json ? file.json(schemaURL: schemaURL, existing: existing)
                : file.yaml(schemaURL: schemaURL, existing: existing)
            guard let out else {
                session.console.printRaw(Data(written.utf8))
                return
            }
            try Self.replace(out, with: written)
            if session.format == .human {
                session.console.note("Wrote the catalog of \(app) to \(out): \(file.subscriptionGroups.count) subscription "
                    + "group\(file.subscriptionGroups.count == 1 ? "" : "s"), \(file.products.count) product"
                    + "\(file.products.count == 1 ? "" : "s")\(existing == nil ? "" : ", its comments kept").")
            }
        }

        /// Writes `text` to a file beside `path`, then moves it over `path`: the file is whole or untouched.
        static func replace(_ path: String, with text: String) throws(CommandFailure) {
            let target = URL(fileURLWithPath: path)
            let temporary = target.deletingLastPathComponent().appendingPathComponent(".\(target.lastPathComponent).partial")
            do {
                try Data(text.utf8).write(to: temporary)
            } catch {
                throw .badInput(path, "cannot write it (\(error.localizedDescription))")
            }
            // rename(2) replaces the file in one step: a reader sees the old file or the new one, never a part.
            guard rename(temporary.path, target.path) == 0 else {
                let reason = String(cString: strerror(errno))
                try? FileManager.default.removeItem(at: temporary)
                throw .badInput(path, "cannot write it (\(reason))")
            }
        }
    }

    /// `catalog plan`: what applying a file would change; the exit code says whether anything would.
    struct Plan: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show what applying a catalog file would change, and change nothing.",
            discussion: """
                For each group and product of the file: create, update (field by field; where a product is on \
                sale, a reviewed field goes into a draft, which `submit-change` then sends to review) or \
                unchanged; products the file leaves out stay (`--allow-deletions` plans their deletion, for those \
                never submitted); and everything that cannot be done, with why, at its path in the file.

                Exit codes, for CI: 0 nothing to change, 2 changes pending, 67 something is refused (nothing can \
                be applied), 65 the file is not a catalog file. --json prints the plan as the API answers it.

                Examples:
                  admin-cli catalog plan catalog.yaml --app com.example.game
                  admin-cli catalog plan catalog.yaml --json > plan.json; test $? -ne 67
                """)

        @OptionGroup var target: Target

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let (session, app, _, plan) = try await target.plan(global)
            await session.show(identifiers: PlanView.changedIdentifiers(plan)) {
                PlanView(plan: plan, app: app, console: session.console).print()
            }
            try PlanView.exit(for: plan)
        }
    }

    /// `catalog apply`: the plan of a file, shown, confirmed and applied exactly, all or nothing.
    struct Apply: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Apply a catalog file: exactly the plan it shows, all or nothing.",
            discussion: """
                Shows the plan, asks for confirmation on a terminal (--yes skips the question, and is needed when \
                not on a terminal), then applies it in one transaction on the server. If the catalog changed \
                since the plan was shown, nothing is applied: the new plan is shown instead (exit 67); run apply \
                again after reading it. A plan that refuses anything applies nothing (exit 67). Products the file \
                leaves out are deleted only with --allow-deletions (and only if never submitted). Every change is \
                recorded in the history with the file's name and SHA-256. Lifecycle actions are never taken: \
                after an edit of a live product's reviewed fields, run submit-change.

                Example:
                  admin-cli catalog apply catalog.yaml --app com.example.game
                """)

        @OptionGroup var target: Target

        @Flag(name: [.short, .long], help: "Do not ask for confirmation.")
        var yes = false

        @Option(help: ArgumentHelp(
            "Apply only the plan of this fingerprint (as `catalog plan --json` gave it, for the plan a review saw): "
                + "if the catalog or the file changed since, nothing is applied.", valueName: "hex"))
        var fingerprint: String?

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let (session, app, input, plan) = try await target.plan(global)
            let view = PlanView(plan: plan, app: app, console: session.console)
            // With --fingerprint of another plan, the server answers with the plan as it stands now instead.
            if fingerprint == nil || fingerprint == plan.fingerprint {
                await session.show(identifiers: []) { view.print() }
            }
            guard plan.applicable else {
                throw CommandFailure(.refused, "nothing was applied: the plan refuses \(plan.refusals.count) "
                    + "step\(plan.refusals.count == 1 ? "" : "s")", hint: "change the file, then run catalog plan again")
            }
            guard plan.hasChanges || (fingerprint != nil && fingerprint != plan.fingerprint) else {
                if session.format == .human { session.console.note("Nothing to apply: the catalog is as the file says.") }
                return
            }
            try Prompt.confirm("Apply these changes to \(app)?", assumeYes: yes, console: session.console)
            let applied = try await session.answer({
                try await $0.applyCatalogFile(
                    path: .init(bundleId: app),
                    query: .init(fingerprint: fingerprint ?? plan.fingerprint, allowDeletions: target.allowDeletions,
                                 fileName: input.name),
                    body: .yaml(HTTPBody(input.data)))
            }) { output in
                switch output {
                case .ok(let answer): return try answer.body.json
                case .conflict(let answer):
                    let problem = try answer.body.applicationProblemJson
                    if let now = problem.plan {
                        if session.format == .human {
                            session.console.note("")
                            PlanView(plan: now, app: app, console: session.console).print()
                        }
                    }
                    var failure = session.failure(409, problem)
                    failure.hint = problem.plan?.applicable == true
                        ? "read the plan above, then run catalog apply again" : "change the file, then plan again"
                    throw failure
                case .badRequest(let answer): throw Catalog.notACatalogFile(input, try answer.body.applicationProblemJson, session)
                case .unprocessableContent(let answer):
                    throw Catalog.notACatalogFile(input, try answer.body.applicationProblemJson, session)
                default: return try output.ok.body.json
                }
            }
            await session.show(identifiers: PlanView.changedIdentifiers(applied)) {
                let summary = applied.summary
                session.console.print("Applied \(input.name ?? "the file") to \(app): \(summary.create) created, "
                    + "\(summary.update) updated, \(summary.delete) deleted, \(summary.unchanged) unchanged; "
                    + "\(summary.groupsCreate) group\(summary.groupsCreate == 1 ? "" : "s") created, "
                    + "\(summary.groupsUpdate) updated. History names the file by sha256 \(applied.fileSha256.prefix(12))….")
                let drafts = applied.products.filter { $0.followUp.contains(.submitChange) }.map(\.productId)
                if !drafts.isEmpty {
                    session.console.note("Next: admin-cli submit-change " + drafts.joined(separator: " ")
                        + "  (the changes are drafts until reviewed)")
                }
            }
        }
    }
}
