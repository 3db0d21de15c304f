import Foundation

/// A command that could not do its work, as the person at the terminal should read it: one sentence, the
/// items at fault one per line, perhaps a hint of what to do, and the exit code that scripts test.
struct CommandFailure: Error, Sendable {
    var status: ExitStatus
    /// One clear sentence.
    var message: String
    /// The fields or items at fault, or what is allowed instead, one per line.
    var details: [String] = []
    /// What to do about it, when that is not obvious from the message.
    var hint: String?
    /// The problem details as the server sent them, printed on stdout with `--json`.
    var body: Data?

    init(_ status: ExitStatus, _ message: String, details: [String] = [], hint: String? = nil, body: Data? = nil) {
        self.status = status
        self.message = message
        self.details = details
        self.hint = hint
        self.body = body
    }
}

extension CommandFailure {
    /// An input file that cannot be used.
    static func badInput(_ path: String, _ reason: String) -> CommandFailure {
        CommandFailure(.badInput, "cannot use \(path): \(reason)")
    }

    /// A configuration problem (file or profile).
    static func configuration(_ message: String, hint: String? = nil) -> CommandFailure {
        CommandFailure(.configuration, message, hint: hint)
    }
}
