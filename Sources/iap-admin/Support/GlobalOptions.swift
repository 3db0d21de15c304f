import ArgumentParser
import Foundation

/// The options every command that talks to the server takes: where, with which key, and how to print.
struct GlobalOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The server, e.g. https://catalog.example.com (default: $IAP_URL, the profile's, or http://127.0.0.1:8080).",
                               valueName: "url"))
    var url: String?

    @Option(help: ArgumentHelp("The API key (default: $IAP_KEY, or the profile's). Prefer IAP_KEY or login: a flag shows in the process list.",
                               valueName: "key"))
    var key: String?

    @Option(help: ArgumentHelp("The profile of the config file to use (default: $IAP_PROFILE or \"default\").",
                               valueName: "name"))
    var profile: String?

    @Flag(help: "Print the API's JSON exactly as the server sent it.")
    var json = false

    @Flag(name: [.short, .long], help: "Print only identifiers, one per line.")
    var quiet = false

    @Flag(name: .customLong("no-color"), help: "No colour, even on a terminal (as does NO_COLOR).")
    var noColor = false

    func validate() throws {
        if json && quiet { throw ValidationError("--json and --quiet cannot be used together") }
    }

    /// How to print for these options.
    var format: OutputFormat { json ? .json : quiet ? .quiet : .human }
}

/// What a command prints: tables and sentences for people, the API's JSON, or identifiers only.
enum OutputFormat: Sendable {
    case human, json, quiet
}

/// What `--json` prints of a command's result.
enum JSONOutput: Sendable {
    /// The latest answer of the API, exactly as received.
    case latestAnswer
    /// A document of the command's own (several answers as one), or answers it kept.
    case document(Data?)
    /// Nothing: a list printed each page as it came; an answer without a body.
    case nothing
}
