import ArgumentParser
import CatalogAPI

extension History {
    /// `history verify`: proof that the history was not altered.
    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify",
            abstract: "Recompute the history's hash chains and say where one breaks, if any does.",
            discussion: """
                Each app's events form a chain: every event's hash covers its content and the previous event's \
                hash. The server recomputes them all (admin and auditor keys). Record the last hashes: a later \
                verification that still finds them proves the past was not rewritten. Exits 67 when a chain is \
                broken, naming the first broken link.

                Example:
                  admin-cli history verify --app com.example.game
                """)

        @Option(help: "Only this app's chain (default: every chain your key may see).")
        var app: String?

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let session = try Session(global)
            let verification = try await session.answer({ try await $0.verifyHistory(query: .init(app: app)) }) {
                try $0.ok.body.json
            }
            let console = session.console
            await session.show {
                var table = Table("CHAIN", "EVENTS", "VERIFIED", "LAST HASH")
                for chain in verification.chains {
                    table.add(Table.Cell(chain.app ?? "(keys)"), Table.Cell(String(chain.events)),
                              chain.verified ? Table.Cell("yes", .green) : Table.Cell("NO", .red),
                              Table.Cell(chain.lastHash ?? "-"))
                }
                table.print(on: console)
                if verification.verified {
                    console.print(console.paint("Every chain verified: the history is as it was written.", .green))
                }
            }
            let broken = verification.chains.filter { !$0.verified }
            guard broken.isEmpty else {
                throw CommandFailure(.refused, "the history does not verify: \(broken.count) chain\(broken.count == 1 ? " is" : "s are") broken",
                                     details: broken.map { chain in
                                         guard let link = chain.firstBrokenLink else { return "\(chain.app ?? "(keys)"): broken" }
                                         return "\(chain.app ?? "(keys)"): event \(link.sequence) (number \(link.chainSequence) in its chain): "
                                             + "\(link.problem.rawValue), expected \(link.expectedHash), found \(link.foundHash)"
                                     })
            }
        }
    }
}
