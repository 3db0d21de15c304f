import ArgumentParser
import CatalogAPI
import Foundation
import OpenAPIRuntime

/// `export`: take a catalog out as a file.
struct Export: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Export a catalog as a file (an Xcode StoreKit configuration file).",
        discussion: """
            Example:
              admin-cli export storekit --app com.example.game > Products.storekit
            """,
        subcommands: [StoreKit.self])
}

extension Export {
    /// `export storekit`: the app's catalog as a `.storekit` file on stdout, written as Xcode writes it.
    struct StoreKit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "storekit",
            abstract: "Export the app's catalog as an Xcode StoreKit configuration file (.storekit) on stdout.",
            discussion: """
                The file is the one Xcode opens for local StoreKit testing, written byte for byte as Xcode writes \
                it. By default (--live) it holds the products on sale, each from its live revision; --draft holds \
                every product but rejected ones, each from its working revision. What the catalog kept of imported \
                files (internal ids, other offers, settings) comes back as it was, so that an imported file \
                exports as itself.

                A product the format cannot hold is left out and named on stderr: a free subscription, a draft \
                without a price, a draft subscription without group, level or duration. The export still succeeds. \
                A line on stderr sums up what was written (not with --quiet).

                Examples:
                  admin-cli export storekit --app com.example.game > Products.storekit
                  admin-cli export storekit --app com.example.game --draft > Draft.storekit
                """)

        @Option(help: "The app's bundle id (default: $IAP_APP or the profile's app).")
        var app: String?

        @Flag(help: "Which revision: --live, the products on sale as customers see them (the default), or --draft, what is being worked on.")
        var revision: Revision = .live

        enum Revision: String, EnumerableFlag {
            case live, draft
        }

        @OptionGroup var global: GlobalOptions

        func validate() throws {
            if global.json { throw ValidationError("the export is the file itself: --json does not apply") }
        }

        func run() async throws {
            let session = try Session(global)
            let app = try session.app(app)
            let ok = try await session.answer({
                try await $0.exportStoreKit(path: .init(bundleId: app),
                                            query: .init(revision: revision == .draft ? .draft : .live))
            }) { try $0.ok }
            let file: Data
            do {
                file = try await Data(collecting: try ok.body.binary, upTo: ResponseRecorder.maximumBody)
            } catch {
                throw CommandFailure(.serverError, "the file could not be read from the server's answer: \(error)")
            }
            let console = session.console
            console.write(file)
            let skipped = SkippedProducts(header: ok.headers.xSkippedProducts)
            for item in skipped.items {
                console.note(console.paintError("skipped:", .yellow) + " \(item.productID): \(item.explanation)")
            }
            guard session.format == .human else { return }
            console.note("Exported the \(revision.rawValue) catalog of \(app) (\(ByteSize(file.count)))"
                + (skipped.items.isEmpty ? "." : "; \(skipped.items.count) product\(skipped.items.count == 1 ? "" : "s") left out."))
        }
    }
}

/// The products an export left out, from its `X-Skipped-Products` header (`productId=reason, ...`).
struct SkippedProducts {
    struct Item {
        let productID: String
        let reason: String

        /// The reason as a person reads it.
        var explanation: String {
            switch reason {
            case "free-subscription": "a free subscription, which a StoreKit file cannot hold"
            case "no-price": "it has no price yet, which a StoreKit file needs"
            case "incomplete": "a subscription without its group, level or duration, which a StoreKit file needs"
            default: reason
            }
        }
    }

    let items: [Item]

    init(header: String?) {
        items = (header ?? "").split(separator: ",").compactMap { entry in
            let parts = entry.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            guard let id = parts.first, !id.isEmpty else { return nil }
            return Item(productID: String(id), reason: parts.count > 1 ? String(parts[1]) : "skipped")
        }
    }
}
