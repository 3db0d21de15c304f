import ArgumentParser
import Foundation

/// The admin CLI of the IAP Catalog: everything product managers, reviewers and auditors do, over the HTTP API.
@main
struct IAPAdmin: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin-cli",
        abstract: "Manage the IAP Catalog: apps, subscription groups, in-app purchases, their App Store review, and what client apps bought.",
        discussion: """
            Every command talks to the catalog server over its HTTP API. Run `admin-cli COMMAND --help` for \
            a command's options and an example.

            Configuration, per setting, first found wins:
              server URL   --url, $IAP_URL, the profile's URL, else \(Endpoint.defaultURL)
              API key      --key, $IAP_KEY, the profile's key
              app          --app, $IAP_APP, the profile's app
              profile      --profile, $IAP_PROFILE, else "default"
            Profiles live in $XDG_CONFIG_HOME/iap-catalog/config.json (or ~/.config/iap-catalog/config.json), \
            written 0600 by `admin-cli login`.

            Output: aligned tables for people, in colour on a terminal (not when piped, nor with NO_COLOR or \
            --no-color). --json prints the API's JSON exactly as received (one document per answer, one per \
            line when a command makes several calls); --quiet prints only identifiers, one per line.

            Exit codes:
            \(exitCodes)

            Example, a product from creation to sale:
              admin-cli login --url https://catalog.example.com --app com.example.game
              admin-cli products create coins.100 --type consumable --name "100 coins" \\
                --price 0.99 --display-name "100 Coins" --description "A pile of coins"
              admin-cli approve coins.100 && admin-cli submit coins.100
              admin-cli products show coins.100
            """,
        groupedSubcommands: [
            CommandGroup(name: "Catalog", subcommands: [Apps.self, Groups.self, Products.self, Identifiers.self]),
            CommandGroup(name: "Files", subcommands: [Catalog.self, Import.self, Export.self]),
            CommandGroup(name: "Lifecycle", subcommands: [
                Approve.self, Submit.self, Withdraw.self, Resubmit.self, CancelChange.self, SubmitChange.self,
                RemoveFromSale.self, RestoreToSale.self, Review.self,
            ]),
            CommandGroup(name: "Purchases", subcommands: [Purchases.self, Transactions.self, Accounts.self, Signals.self,
                                                          StoreSettings.self]),
            CommandGroup(name: "Audit", subcommands: [History.self]),
            CommandGroup(name: "Events", subcommands: [Events.self, Webhooks.self]),
            CommandGroup(name: "Access", subcommands: [Login.self, Logout.self, Status.self, Keys.self]),
            CommandGroup(name: "Shell", subcommands: [Completions.self]),
        ])

    /// The exit codes, one per line, continuation lines indented under the meaning.
    private static var exitCodes: String {
        ExitStatus.allCases.map { status in
            let code = String(status.rawValue).padding(toLength: 4, withPad: " ", startingAt: 0)
            return "  " + code + status.meaning.replacingOccurrences(of: "\n", with: "\n      ")
        }.joined(separator: "\n")
    }

    /// Parses and runs the command; a ``CommandFailure`` is told on stderr (and, with `--json`, the server's
    /// problem details on stdout) and becomes the process's exit code. Nothing ever ends in a stack trace.
    static func main() async {
        do {
            var command = try await asyncParseAsRoot()
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch let failure as CommandFailure {
            report(failure)
            Foundation.exit(failure.status.rawValue)
        } catch {
            exit(withError: error)
        }
    }

    private static func report(_ failure: CommandFailure) {
        let console = Console(noColor: CommandLine.arguments.contains("--no-color"))
        if let body = failure.body { console.printRaw(body) }
        console.note(console.paintError("error:", .red) + " " + failure.message)
        for detail in failure.details { console.note("  " + detail) }
        if let hint = failure.hint { console.note(console.paintError("hint: " + hint, .dim)) }
    }
}
