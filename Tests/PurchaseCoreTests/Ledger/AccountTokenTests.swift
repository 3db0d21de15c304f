import PurchaseCore
import Testing

@Suite("Account tokens")
struct AccountTokenTests {
    @Test("a UUID or the applicationUsername layout, kept in lowercase", arguments: [
        ("3F2504E0-4F89-11D3-9A0C-0305E82C3301", "3f2504e0-4f89-11d3-9a0c-0305e82c3301"),
        ("3f2504e0-4f89-11d3-9a0c-0305e82c3301", "3f2504e0-4f89-11d3-9a0c-0305e82c3301"),
        ("0123abcd-4567ef01-89abcdef-01234567-89ABCDEF-01234567-89abcdef-01234567",
         "0123abcd-4567ef01-89abcdef-01234567-89abcdef-01234567-89abcdef-01234567"),
    ])
    func accepted(text: String, kept: String) {
        #expect(AccountToken(parsing: text)?.text == kept)
    }

    @Test("anything else is refused", arguments: [
        "", "user@example.com", "3f2504e04f8911d39a0c0305e82c3301", "3f2504e0-4f89-11d3-9a0c-0305e82c330",
        "3f2504e0-4f89-11d3-9a0c-0305e82c3301-", "g f2504e0-4f89-11d3-9a0c-0305e82c3301",
        "0123abcd4567ef0189abcdef0123456789abcdef0123456789abcdef01234567",
        "0123abcd-4567ef01-89abcdef-01234567-89abcdef-01234567-89abcdef",
        "0123abcd-4567ef01-89abcdef-01234567-89abcdef-01234567-89abcdef-0123456z",
    ])
    func refused(text: String) {
        #expect(AccountToken(parsing: text) == nil)
    }
}
