import CatalogCore
import Testing

/// App Store Connect's limits, at and just past each boundary.
@Suite("Limits")
struct LimitTests {
    @Test("productId: 1–100 of A–Z a–z 0–9 . _ -", arguments: [
        ("a", true), (String(repeating: "x", count: 100), true), ("com.app_x-1.Gold", true),
        ("", false), (String(repeating: "x", count: 101), false), ("with space", false), ("é", false),
        ("semi;colon", false), ("quote'", false), ("slash/", false),
    ])
    func productID(value: String, valid: Bool) {
        #expect(Identifiers.productIDProblems(value).isEmpty == valid)
    }

    @Test("referenceName 1–64, displayName 2–30, description 1–45, reviewNote at most 4,000, in characters")
    func textLimits() throws {
        let cases: [(ProductEdit, String?)] = [
            (ProductEdit(referenceName: String(repeating: "r", count: 64)), nil),
            (ProductEdit(referenceName: String(repeating: "r", count: 65)), "referenceName:maxLength"),
            (ProductEdit(referenceName: ""), "referenceName:minLength"),
            (ProductEdit(localizations: [loc(name: "ab")]), nil),
            (ProductEdit(localizations: [loc(name: "a")]), "localizations[0].displayName:minLength"),
            (ProductEdit(localizations: [loc(name: String(repeating: "n", count: 30))]), nil),
            (ProductEdit(localizations: [loc(name: String(repeating: "n", count: 31))]), "localizations[0].displayName:maxLength"),
            (ProductEdit(localizations: [loc(description: String(repeating: "d", count: 45))]), nil),
            (ProductEdit(localizations: [loc(description: String(repeating: "d", count: 46))]),
             "localizations[0].description:maxLength"),
            (ProductEdit(localizations: [loc(description: "")]), "localizations[0].description:minLength"),
            (ProductEdit(reviewNote: String(repeating: "n", count: 4_000)), nil),
            (ProductEdit(reviewNote: String(repeating: "n", count: 4_001)), "reviewNote:maxLength"),
            // Non-ASCII counts as characters, not bytes: 30 kanji fit a display name.
            (ProductEdit(localizations: [loc(name: String(repeating: "金", count: 30))]), nil),
            (ProductEdit(referenceName: "nul\u{0}byte"), "referenceName:noNul"),
            (ProductEdit(localizations: [loc(), loc()]), "localizations[1].locale:unique"),
            (ProductEdit(localizations: [Localization(locale: "en_US", displayName: "ab", description: "d")]),
             "localizations[0].locale:pattern"),
        ]
        let product = try Fixtures.newProduct()
        for (edit, expected) in cases {
            #expect(refusal(of: edit, to: product) == expected)
        }
    }

    @Test("an auto-renewable subscription's description may hold 55 characters, other types' 45")
    func subscriptionDescriptions() throws {
        let subscription = try Fixtures.newProduct(.autoRenewableSubscription, id: "pass.monthly")
        let consumable = try Fixtures.newProduct()
        let cases: [(Product, Int, String?)] = [
            (subscription, 55, nil), (subscription, 56, "localizations[0].description:maxLength"),
            (consumable, 46, "localizations[0].description:maxLength"),
        ]
        for (product, length, expected) in cases {
            let edit = ProductEdit(localizations: [loc(description: String(repeating: "d", count: length))])
            #expect(refusal(of: edit, to: product) == expected)
        }
    }

    @Test("amounts are exact decimals of at most 10 integer and 6 fraction digits", arguments: [
        ("0.99", true), ("99", true), ("2.00", true), ("0.5", true), ("9999999999.999999", true),
        ("-1", false), ("1e3", false), (".5", false), ("5.", false), ("1,99", false), ("12345678901", false),
        ("1.1234567", false), ("", false), (" 1", false), ("١", false),
    ])
    func amounts(text: String, valid: Bool) {
        #expect(DecimalAmount(text).isValid == valid)
    }

    @Test("zero is zero however it is written")
    func zero() {
        #expect(DecimalAmount("0").isZero && DecimalAmount("0.000").isZero && !DecimalAmount("0.01").isZero)
    }

    @Test("locales are BCP 47 tags as App Store Connect writes them", arguments: [
        ("en-US", true), ("zh-Hans", true), ("zh-Hant-TW", true), ("es-419", true), ("fr", true),
        ("en_US", false), ("EN-us", false), ("english", false), ("zh-hans", false), ("", false),
    ])
    func locales(tag: String, valid: Bool) {
        #expect(Identifiers.localeProblems(tag, field: "locale").isEmpty == valid)
    }

    @Test("bundle ids: reverse-DNS of letters, digits, dots and hyphens", arguments: [
        ("com.example.app", true), ("a", true), ("com.example-app.2", true),
        (".com", false), ("com example", false), ("com/example", false), (String(repeating: "a", count: 156), false),
    ])
    func bundleIDs(value: String, valid: Bool) {
        #expect(Identifiers.bundleIDProblems(value).isEmpty == valid)
    }

    @Test("identifiers: every character is matched against the pattern, ASCII or not")
    func identifierCharacters() {
        let others: [String] = ["é", "e\u{301}", "\r\n", "\u{FF11}", "\u{663}", "\u{1C5}", "\u{1F389}", "\u{200B}"]
        for character in (0..<0x80).map({ String(UnicodeScalar(UInt8($0))) }) + others {
            let allowed = character.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
            #expect(Identifiers.productIDProblems("a" + character + "b").isEmpty
                        == (allowed || [".", "_", "-"].contains(character)), "\(character.unicodeScalars.map(\.value))")
            #expect(Identifiers.bundleIDProblems("a" + character + "b").isEmpty
                        == (allowed || [".", "-"].contains(character)), "\(character.unicodeScalars.map(\.value))")
        }
    }

    @Test("an app's fields are checked together")
    func appRules() {
        let app = App(bundleID: "bad id", name: "", primaryLocale: "english")
        #expect(app.problems.map(\.field) == ["bundleId", "name", "primaryLocale"])
    }

    @Test("at most 10,000 products per app")
    func productsPerApp() { #expect(Limits.productsPerApp == 10_000) }

    /// The problems `edit` is refused for, as `field:rule` joined by commas; nil when it is accepted.
    private func refusal(of edit: ProductEdit, to product: Product) -> String? {
        do {
            _ = try product.applying(edit, in: Fixtures.app, at: Fixtures.now)
            return nil
        } catch .validationFailed(let problems) {
            return problems.map { "\($0.field):\($0.rule)" }.joined(separator: ",")
        } catch {
            return "\(error)"
        }
    }

    private func loc(name: String = "Gold", description: String = "Coins") -> Localization {
        Localization(locale: "en-US", displayName: name, description: description)
    }
}
