import CatalogStore
import CatalogTestSupport
import Foundation
import Testing

/// README's purchase walkthrough ("Purchases against the stand-in App Store"), run as written by
/// `scripts/purchase-walkthrough`: the stand-in, `scripts/serve`, `create-key`, admin-cli and curl as real
/// processes, from a new database, so that the README's commands cannot stop working unnoticed.
@Suite("README's purchase walkthrough")
struct PurchaseWalkthroughTests {
    @Test("README's purchase walkthrough runs as written: a receipt 202 then verified, a signed transaction 200")
    func walkthrough() async throws {
        // The test cluster's server, as a superuser: the script makes a database of its own there.
        let server = try await TestDatabase.empty("walkthrough")
        let root = TestDatabase.repositoryRoot
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("walkthrough-\(UUID().uuidString).log")
        guard FileManager.default.createFile(atPath: output.path, contents: nil) else {
            throw TestSetupError("cannot create \(output.path)")
        }
        defer { try? FileManager.default.removeItem(at: output) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [root.appendingPathComponent("scripts/purchase-walkthrough").path]
        process.currentDirectoryURL = root
        var environment = ProcessInfo.processInfo.environment
        environment["IAP_WALKTHROUGH_POSTGRES_URL"] =
            "postgres://\(server.username)@\(server.host):\(server.port)/\(server.database)"
        environment["IAP_WALKTHROUGH_BIN"] = root.appendingPathComponent(".build/debug").path
        process.environment = environment
        let handle = try FileHandle(forWritingTo: output)
        defer { try? handle.close() }
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        // The walkthrough itself takes about 10 s (a receipt's two calls to the stand-in, 1-2 s each); the bound
        // is for a machine busy with other suites.
        let deadline = ContinuousClock.now + .seconds(120)
        while process.isRunning && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(100)) }
        if process.isRunning {
            process.terminate()  // the script's trap stops what the walkthrough started
            try await Task.sleep(for: .seconds(3))
        }
        let log = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        #expect(!process.isRunning && process.terminationStatus == 0, "scripts/purchase-walkthrough:\n\(log)")
    }
}
