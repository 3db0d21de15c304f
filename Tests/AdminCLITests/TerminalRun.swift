import Foundation
import Synchronization
import Testing

extension AdminCLI {
    /// Runs the CLI on a terminal, as a person at one runs it: util-linux's `script` gives it a pseudo-terminal
    /// (which echoes what is typed, unless the CLI turns that off) and, once `prompt` shows, `typed` is typed and
    /// Return pressed. Answers the exit status and everything the terminal showed: the prompt, the output, and
    /// whatever was echoed of the typing.
    func runAtTerminal(_ arguments: [String], prompt: String, typed: String) async throws -> (status: Int32, terminal: String) {
        let command = ([Self.binary.path] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["--quiet", "--return", "--echo", "always", "--command", command.joined(separator: " "), "/dev/null"]
        process.environment = environment.filter { !$0.value.isEmpty }
        process.currentDirectoryURL = home
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        let shown = Mutex(Data())
        output.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            shown.withLock { $0.append(data) }
        }
        try process.run()
        let deadline = ContinuousClock.now + .seconds(60)
        var typedYet = false
        while process.isRunning, ContinuousClock.now < deadline {
            if !typedYet, shown.withLock({ String(decoding: $0, as: UTF8.self) }).contains(prompt) {
                typedYet = true
                input.fileHandleForWriting.write(Data((typed + "\n").utf8))
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        try? input.fileHandleForWriting.close()
        try await Task.sleep(for: .milliseconds(50))
        output.fileHandleForReading.readabilityHandler = nil
        let rest = output.fileHandleForReading.readDataToEndOfFile()
        let terminal = shown.withLock { String(decoding: $0 + rest, as: UTF8.self) }
        #expect(typedYet, "the prompt \"\(prompt)\" never showed: \(terminal)")
        return (process.terminationStatus, terminal)
    }
}
