import CatalogCore
import Crypto
import Foundation
import PurchaseCore
import Testing

/// The tokens the server makes for an account: the seed's layout, the UUID, their determinism and secrecy.
@Suite("Account tokens made by the server")
struct AccountTokensTests {
    /// The bytes 0, 1, ..., 31: a secret the vectors below were computed under.
    static let secret = AccountTokenSecret(bytes: Array(0..<32))!

    /// Computed outside this code, with Python's `hmac` and `uuid` modules and checked with
    /// `openssl dgst -sha256 -mac HMAC -macopt hexkey:000102…1e1f`:
    /// `'-'.join(d[i:i+8] for i in range(0, 64, 8))` of the hex digest, and `uuid.UUID(bytes=...)` of its first
    /// 16 bytes with byte 6 `(b & 0x0f) | 0x40` and byte 8 `(b & 0x3f) | 0x80`.
    @Test("HMAC-SHA-256 in the seed's layout and as a version 4 UUID, as an independent computation gives them", arguments: [
        ("user-42", "74ea6318-fd907a36-7325175c-df62f55d-d986485c-a4cd5342-c5f91209-38404bf6",
         "74ea6318-fd90-4a36-b325-175cdf62f55d"),
        ("alice@example.com", "a59fc578-d4cb46fa-ab1d6eb3-48e7c74b-33b85122-d6459fdb-7bf5654b-333acab4",
         "a59fc578-d4cb-46fa-ab1d-6eb348e7c74b"),
        ("ünïcødé", "13cd18f3-27213f9d-c7837902-9af45d0a-9b35670e-7ec9ccbc-77b21403-4905faad",
         "13cd18f3-2721-4f9d-8783-79029af45d0a"),
    ])
    func vectors(account: String, applicationUsername: String, appAccountToken: String) throws {
        let tokens = AccountTokens.derive(for: try AccountName(account), under: Self.secret)
        #expect(tokens.applicationUsername == applicationUsername)
        #expect(tokens.appAccountTokenText == appAccountToken)
    }

    /// The seed's `hashedValueForAccountName` is plain SHA-256 in this layout; `sha256sum` of "abc" (FIPS 180-2's
    /// first example) is ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad.
    @Test("the layout of SHA-256(\"abc\") is the seed's: a dash after every 4 bytes, lowercase")
    func seedLayout() {
        let digest = Array(SHA256.hash(data: Data("abc".utf8)))
        let layout = AccountTokens.applicationUsernameLayout(digest)
        #expect(layout == "ba7816bf-8f01cfea-414140de-5dae2223-b00361a3-96177a9c-b410ff61-f20015ad")
        #expect(layout.count == 71 && layout.filter { $0 == "-" }.count == 7)
        #expect(AccountToken(parsing: layout)?.text == layout)
    }

    @Test("the UUID keeps the digest's bits but the version and variant's six")
    func uuidBits() {
        for seed in 0..<64 {
            let digest = Array(SHA256.hash(data: Data("account \(seed)".utf8)))
            let uuid = AccountTokens(digest: digest).appAccountToken.uuid
            let bytes = [uuid.0, uuid.1, uuid.2, uuid.3, uuid.4, uuid.5, uuid.6, uuid.7, uuid.8, uuid.9, uuid.10,
                         uuid.11, uuid.12, uuid.13, uuid.14, uuid.15]
            #expect(bytes[6] >> 4 == 4 && bytes[8] >> 6 == 0b10)
            #expect(bytes[6] & 0x0F == digest[6] & 0x0F && bytes[8] & 0x3F == digest[8] & 0x3F)
            for index in 0..<16 where index != 6 && index != 8 { #expect(bytes[index] == digest[index]) }
        }
    }

    @Test("the same account under the same secret gives the same tokens; another secret or account, others")
    func determinism() throws {
        let account = try AccountName("user-42")
        let other = AccountTokenSecret(bytes: Array(repeating: 7, count: 32))!
        #expect(AccountTokens.derive(for: account, under: Self.secret) == AccountTokens.derive(for: account, under: Self.secret))
        #expect(AccountTokens.derive(for: account, under: Self.secret) != AccountTokens.derive(for: account, under: other))
        #expect(AccountTokens.derive(for: account, under: Self.secret)
                    != AccountTokens.derive(for: try AccountName("user-43"), under: Self.secret))
        // No folding: the app's ids are its own.
        #expect(AccountTokens.derive(for: account, under: Self.secret)
                    != AccountTokens.derive(for: try AccountName("USER-42"), under: Self.secret))
    }

    @Test("both forms made from one digest are one account")
    func oneAccountKey() throws {
        let tokens = AccountTokens.derive(for: try AccountName("user-42"), under: Self.secret)
        let username = try #require(AccountToken(parsing: tokens.applicationUsername))
        let uuid = try #require(AccountToken(parsing: tokens.appAccountTokenText))
        #expect(username.accountKey == tokens.appAccountToken && uuid.accountKey == tokens.appAccountToken)
        #expect(username.isApplicationUsername && !uuid.isApplicationUsername)
        // Any UUID is its own account, whatever its version; uppercase is the same token.
        let random = try #require(AccountToken(parsing: "3F2504E0-4F89-11D3-9A0C-0305E82C3301"))
        #expect(random.accountKeyText == "3f2504e0-4f89-11d3-9a0c-0305e82c3301")
        // An app's own seed-layout token (plain SHA-256) has a key too: the UUID of its first 16 bytes.
        let seed = try #require(AccountToken(parsing: "ba7816bf-8f01cfea-414140de-5dae2223-b00361a3-96177a9c-b410ff61-f20015ad"))
        #expect(seed.accountKeyText == "ba7816bf-8f01-4fea-8141-40de5dae2223")
    }

    @Test("the account and the secret never print", arguments: ["user-42", String(repeating: "é", count: 512)])
    func redacted(account text: String) throws {
        let account = try AccountName(text)
        for printed in ["\(account)", String(reflecting: account), "\(Mirror(reflecting: account).children.map(\.value))",
                        "\(Self.secret)", String(reflecting: Self.secret)] {
            #expect(!printed.contains(text) && !printed.contains("0, 1, 2"), "\(printed)")
        }
    }

    @Test("an empty or over-long account is refused by field and rule, without its value")
    func refusals() {
        for (text, rule) in [("", "minLength"), (String(repeating: "a", count: 513), "maxLength"),
                             (String(repeating: "é", count: 513), "maxLength"), ("user\u{0}42", "noNul")] {
            do {
                _ = try AccountName(text)
                Issue.record("accepted \(text.count) characters")
            } catch {
                guard case .validationFailed(let problems) = error else { Issue.record("\(error)"); continue }
                #expect(problems.map(\.field) == ["account"] && problems.map(\.rule) == [rule])
                #expect(text.isEmpty || !"\(problems)".contains(text))
            }
        }
        #expect((try? AccountName(String(repeating: "a", count: 512))) != nil)
        #expect((try? AccountName(String(repeating: "é", count: 512))) != nil)
        #expect(AccountTokenSecret(bytes: Array(repeating: 1, count: 31)) == nil)
    }
}
