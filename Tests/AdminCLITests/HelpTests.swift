import ArgumentParser
import Foundation
import Testing
@testable import iap_admin

@Suite("admin-cli help, usage and completions")
struct HelpTests {
    /// Every command path of the CLI, from its own configuration, so that a new command is checked too.
    static let commandPaths: [[String]] = {
        func walk(_ command: any ParsableCommand.Type, path: [String]) -> [[String]] {
            [path] + command.configuration.subcommands.flatMap { child in
                walk(child, path: path + [child.configuration.commandName ?? child._commandName])
            }
        }
        return walk(IAPAdmin.self, path: [])
    }()

    @Test("every command's --help has an example")
    func everyCommandHasAnExample() async throws {
        let cli = try await AdminCLI.forTest()
        #expect(Self.commandPaths.count > 40)
        for path in Self.commandPaths {
            let result = try await cli.run(path + ["--help"])
            #expect(result.status == 0, "\(path) --help: \(result)")
            #expect(result.stdout.contains("Example"), "admin-cli \(path.joined(separator: " ")) --help has no example:\n\(result.stdout)")
        }
    }

    @Test("the root help documents configuration and every exit code")
    func rootHelp() async throws {
        let help = try await AdminCLI.forTest().succeed("--help").stdout
        for status in ExitStatus.allCases {
            #expect(help.contains("\(status.rawValue)  "), "exit code \(status.rawValue) is not documented")
        }
        for word in ["IAP_URL", "IAP_KEY", "IAP_PROFILE", "--profile", "config.json", "NO_COLOR", "--json", "--quiet",
                     "products", "approve", "review", "history", "identifiers", "keys", "status", "login", "completions",
                     "purchases", "transactions", "store-settings"] {
            #expect(help.contains(word), "the root help does not mention \(word)")
        }
    }

    @Test("usage mistakes exit 64 with a message, before any request")
    func usageErrors() async throws {
        let cli = try await AdminCLI.forTest()
        for arguments in [["products", "lisst"], ["products", "list", "--state", "SOLD"], ["products", "list", "--json", "--quiet"],
                          ["review", "reject", "x", "--app", "a"], ["products", "create", "x", "--app", "a", "--name", "n"],
                          ["products", "edit", "x", "--app", "a"], ["apps", "update", "com.x"]] {
            let result = try await cli.run(arguments)
            #expect(result.status == 64, "\(arguments): \(result)")
            #expect(result.stdout.isEmpty)
            #expect(result.stderr.contains("Error") || result.stderr.contains("error"), "\(arguments): \(result)")
            #expect(!result.stderr.contains("Fatal error"))
        }
    }

    @Test("completion scripts for bash, zsh and fish", arguments: ["bash", "zsh", "fish"])
    func completions(shell: String) async throws {
        let script = try await AdminCLI.forTest().succeed("completions", shell).stdout
        #expect(script.contains("admin-cli"))
        for word in ["products", "approve", "remove-from-sale", "request-changes"] {
            #expect(script.contains(word), "the \(shell) script does not complete \(word)")
        }
        #expect(script.contains("ready-for-sale"), "the \(shell) script does not complete state values")
    }
}
