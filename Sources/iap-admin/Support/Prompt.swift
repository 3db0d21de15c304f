import ArgumentParser
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Questions asked at the terminal: confirmations of what cannot be undone, and secrets read without echo.
enum Prompt {
    /// Goes on if `assumeYes`, or if the person at the terminal answers yes; otherwise stops. Without a
    /// terminal there is nobody to ask, so `--yes` is required.
    static func confirm(_ question: String, assumeYes: Bool, console: Console) throws {
        if assumeYes { return }
        guard console.inputIsTerminal else {
            throw ValidationError("this cannot be undone: pass --yes to confirm when not at a terminal")
        }
        console.noteInline("\(question) [y/N] ")
        let answer = readLine()?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        guard answer == "y" || answer == "yes" else {
            throw CommandFailure(.usage, "not confirmed; nothing was changed")
        }
    }

    /// A line read from the terminal with echo off (or from stdin as it is when that is not a terminal).
    static func secret(_ prompt: String, console: Console) -> String? {
        guard console.inputIsTerminal else {
            return readLine(strippingNewline: true)?.trimmingCharacters(in: .whitespaces)
        }
        var original = termios()
        tcgetattr(STDIN_FILENO, &original)
        var silent = original
        silent.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent)
        // Only once echo is off: whatever is typed after the prompt shows is never echoed, nor thrown away.
        console.noteInline(prompt)
        defer {
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &original)
            console.note("")
        }
        return readLine(strippingNewline: true)?.trimmingCharacters(in: .whitespaces)
    }
}
