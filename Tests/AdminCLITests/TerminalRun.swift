import Foundation
import Testing

extension AdminCLI {
    /// Runs the CLI on a terminal, as a person at one runs it: util-linux's `script` gives it a pseudo-terminal
    /// (which echoes what is typed, unless the CLI turns that off) and, once `prompt` shows, `typed` is typed and
    /// Return pressed. Answers the exit status and everything the terminal showed: the prompt, the output, and
    /// whatever was echoed of the typing.
    ///
    /// The terminal's output goes to a file, read while it grows, and the process is polled, never waited for
    /// by a blocking call: a pipe's write end inherited by a process another test starts meanwhile would keep a
    /// blocking read from ever ending, and a blocked thread is one of the few the tests' tasks share.
    func runAtTerminal(_ arguments: [String], prompt: String, typed: String) async throws -> (status: Int32, terminal: String) {
        let command = ([Self.binary.path] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["--quiet", "--return", "--echo", "always", "--command", command.joined(separator: " "), "/dev/null"]
        process.environment = environment.filter { !$0.value.isEmpty }
        process.currentDirectoryURL = home
        let transcript = home.appendingPathComponent("terminal-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: transcript.path, contents: nil) else {
            throw TerminalRunError("cannot create \(transcript.path)")
        }
        defer { try? FileManager.default.removeItem(at: transcript) }
        let output = try FileHandle(forWritingTo: transcript)
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        try output.close()
        func shown() -> String { String(decoding: (try? Data(contentsOf: transcript)) ?? Data(), as: UTF8.self) }

        let deadline = ContinuousClock.now + .seconds(60)
        var typedYet = false
        while process.isRunning, ContinuousClock.now < deadline {
            if !typedYet, shown().contains(prompt) {
                typedYet = true
                input.fileHandleForWriting.write(Data((typed + "\n").utf8))
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        if process.isRunning {
            process.terminate()
            let grace = ContinuousClock.now + .seconds(10)
            while process.isRunning, ContinuousClock.now < grace { try await Task.sleep(for: .milliseconds(10)) }
        }
        try? input.fileHandleForWriting.close()
        let terminal = shown()
        #expect(typedYet, "the prompt \"\(prompt)\" never showed: \(terminal)")
        guard !process.isRunning else { throw TerminalRunError("script did not end: \(terminal)") }
        return (process.terminationStatus, terminal)
    }
}

/// A terminal run that could not be made or did not end.
struct TerminalRunError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
