import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where output goes and how it may look: colour only on a terminal, and never with `NO_COLOR`, `--no-color`
/// or `TERM=dumb` (`CLICOLOR_FORCE=1` turns it on when piped, for pagers that understand it). Results go to
/// stdout; messages, errors and progress to stderr, so that piping a command gives only its results.
struct Console: Sendable {
    /// Whether stdout, stderr and stdin are terminals.
    let outputIsTerminal: Bool
    let errorIsTerminal: Bool
    let inputIsTerminal: Bool
    /// Whether stdout and stderr get colour.
    let colour: Bool
    let errorColour: Bool

    init(noColor: Bool, environment: [String: String] = ProcessInfo.processInfo.environment) {
        outputIsTerminal = isatty(STDOUT_FILENO) == 1
        errorIsTerminal = isatty(STDERR_FILENO) == 1
        inputIsTerminal = isatty(STDIN_FILENO) == 1
        let refused = noColor || !(environment["NO_COLOR"] ?? "").isEmpty || environment["TERM"] == "dumb"
        let forced = !(environment["CLICOLOR_FORCE"] ?? "").isEmpty && environment["CLICOLOR_FORCE"] != "0"
        colour = !refused && (outputIsTerminal || forced)
        errorColour = !refused && (errorIsTerminal || forced)
    }

    /// Writes a line to stdout.
    func print(_ line: String = "") {
        Self.write(Data((line + "\n").utf8), to: STDOUT_FILENO)
    }

    /// Writes bytes to stdout as they are, ending them with a newline if they do not end with one.
    func printRaw(_ data: Data) {
        Self.write(data, to: STDOUT_FILENO)
        if data.last != UInt8(ascii: "\n") { Self.write(Data("\n".utf8), to: STDOUT_FILENO) }
    }

    /// Writes bytes to stdout exactly as they are (a streamed export).
    func write(_ data: Data) {
        Self.write(data, to: STDOUT_FILENO)
    }

    /// Writes a line to stderr.
    func note(_ line: String) {
        Self.write(Data((line + "\n").utf8), to: STDERR_FILENO)
    }

    /// Writes text to stderr without a newline (progress bars, prompts).
    func noteInline(_ text: String) {
        Self.write(Data(text.utf8), to: STDERR_FILENO)
    }

    /// `text` in `style` when stdout has colour.
    func paint(_ text: String, _ style: Style) -> String {
        colour ? style.apply(to: text) : text
    }

    /// `text` in `style` when stderr has colour.
    func paintError(_ text: String, _ style: Style) -> String {
        errorColour ? style.apply(to: text) : text
    }

    /// Writes all of `data`. When the reader has gone (`admin-cli ... | head`), there is nobody left to tell
    /// anything: the command ends quietly and successfully, as it would have been stopped by SIGPIPE had
    /// SwiftNIO not ignored that signal.
    private static func write(_ data: Data, to descriptor: Int32) {
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = systemWrite(descriptor, buffer.baseAddress?.advanced(by: offset), buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0, errno == EINTR || errno == EAGAIN {
                    continue
                } else {
                    if errno == EPIPE { exit(0) }
                    return
                }
            }
        }
    }
}

/// write(2), named apart from the console's own `write`.
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}

/// ANSI text styles, few and meaningful: state colours, headers, and errors.
enum Style: Sendable {
    case bold, dim, red, green, yellow, blue, magenta, cyan

    private var code: String {
        switch self {
        case .bold: "1"
        case .dim: "2"
        case .red: "31"
        case .green: "32"
        case .yellow: "33"
        case .blue: "34"
        case .magenta: "35"
        case .cyan: "36"
        }
    }

    func apply(to text: String) -> String {
        text.isEmpty ? text : "\u{1B}[\(code)m\(text)\u{1B}[0m"
    }
}
