import AppStoreStandIn
import ArgumentParser
import Foundation

/// `appstore-standin chain --out DIR`: a new test chain shaped like Apple's, as files.
struct ChainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chain",
        abstract: "Write a new certificate chain shaped like the App Store's (root, intermediate, leaf).",
        discussion: """
            Writes root.pem, root.der, intermediate.pem, leaf.pem and the keys (leaf.key, intermediate.key,
            root.key; PKCS#8 PEM, readable by the owner only), the files the benchmark's gen_chain.py writes.
            Point a server at the root to make it accept what the stand-in signs:

              appstore-standin chain --out /tmp/standin-chain
              APPSTORE_ROOT_CERTIFICATES=/tmp/standin-chain/root.pem iap-server serve
            """)

    @Option(help: "The folder to write the chain to (created if missing).")
    var out: String

    func run() throws {
        let chain = try TestChain.generate()
        try chain.write(to: URL(fileURLWithPath: out))
        print("wrote root.pem, root.der, intermediate.pem, leaf.pem and their keys to \(out)")
    }
}
