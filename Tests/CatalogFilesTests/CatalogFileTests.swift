import CatalogCore
import CatalogFiles
import Foundation
import Testing

/// The file: its YAML and JSON, what reading refuses, and what writing into an existing file keeps.
@Suite("Catalog file")
struct CatalogFileTests {
    static let sample = CatalogFile(
        app: "com.example.files",
        subscriptionGroups: [.init(referenceName: "Pro", localizations: [.init(locale: "en-US", name: "Pro Access")])],
        products: [
            .init(productID: "coins.100", type: .consumable, referenceName: "100 coins",
                  price: Price(currency: "USD", amount: "0.99"),
                  territoryPrices: [TerritoryPrice(territory: "FRA", currency: "EUR", amount: "1.09")],
                  localizations: [Localization(locale: "en-US", displayName: "100 Coins", description: "A pile of coins")]),
            .init(productID: "pro.monthly", type: .autoRenewableSubscription, referenceName: "Pro: monthly # 1",
                  price: Price(currency: "USD", amount: "4.99"),
                  localizations: [Localization(locale: "fr-FR", displayName: "Pro \"mensuel\"", description: "Tout, chaque mois\nvraiment")],
                  familyShareable: true, clearedForSale: false, reviewNote: "yes", subscriptionGroup: "Pro", level: 1,
                  duration: .oneMonth,
                  introductoryOffer: IntroductoryOffer(paymentMode: .payUpFront, period: .oneMonth, numberOfPeriods: 2, amount: "0.99")),
            .init(productID: "trial", type: .nonConsumable, referenceName: "true", price: Price(currency: "USD", amount: "0")),
        ])

    @Test("the canonical layout: stable order, defaults left out, text quoted only where YAML would read it otherwise")
    func canonicalYAML() {
        #expect(Self.sample.yaml(schemaURL: "http://127.0.0.1:8080/v1/schemas/catalog-file.json") == """
            # yaml-language-server: $schema=http://127.0.0.1:8080/v1/schemas/catalog-file.json
            version: 1
            app: com.example.files

            subscriptionGroups:
              - referenceName: Pro
                localizations:
                  - locale: en-US
                    name: Pro Access

            products:
              - productId: coins.100
                type: CONSUMABLE
                referenceName: 100 coins
                price:
                  currency: USD
                  amount: "0.99"
                territoryPrices:
                  - territory: FRA
                    currency: EUR
                    amount: "1.09"
                localizations:
                  - locale: en-US
                    displayName: 100 Coins
                    description: A pile of coins
              - productId: pro.monthly
                type: AUTO_RENEWABLE_SUBSCRIPTION
                referenceName: "Pro: monthly # 1"
                price:
                  currency: USD
                  amount: "4.99"
                subscriptionGroup: Pro
                level: 1
                duration: P1M
                introductoryOffer:
                  paymentMode: PAY_UP_FRONT
                  period: P1M
                  numberOfPeriods: 2
                  amount: "0.99"
                familyShareable: true
                clearedForSale: false
                localizations:
                  - locale: fr-FR
                    displayName: "Pro \\"mensuel\\""
                    description: "Tout, chaque mois\\nvraiment"
                reviewNote: "yes"
              - productId: trial
                type: NON_CONSUMABLE
                referenceName: "true"
                price:
                  currency: USD
                  amount: "0"

            """)
    }

    @Test("YAML and JSON read back as what was written")
    func roundTrips() throws {
        #expect(try CatalogFile(reading: Array(Self.sample.yaml().utf8)) == Self.sample)
        #expect(try CatalogFile(reading: Array(Self.sample.json(schemaURL: "https://x/s.json").utf8)) == Self.sample)
        let empty = CatalogFile(app: nil)
        #expect(empty.yaml() == "version: 1\n\nsubscriptionGroups: []\n\nproducts: []\n")
        #expect(try CatalogFile(reading: Array(empty.yaml().utf8)) == empty)
    }

    @Test("text with what YAML and JSON must escape (controls, C1, byte-order mark, separators) reads back as written")
    func escapes() throws {
        let awkward = "a\u{0}b\u{7}\t\r\n\u{7F}\u{85}\u{9F}\u{A0}\u{FEFF}\u{2028}\u{2029}\"\\ é 😀 # : - "
        var file = Self.sample
        file.products[0].referenceName = " " + awkward
        file.products[0].localizations[0].description = awkward
        #expect(try CatalogFile(reading: Array(file.yaml().utf8)) == file)
        #expect(try CatalogFile(reading: Array(file.json().utf8)) == file)
        // Written as escapes, so that the file holds no character a YAML reader refuses or reads as a line break.
        #expect(!file.yaml().unicodeScalars.contains { $0 == "\u{85}" || $0 == "\u{2028}" || $0 == "\u{FEFF}" })
    }

    @Test("amounts are the scalar's text, quoted or not: never a binary float")
    func amountsAsWritten() throws {
        let file = try CatalogFile(reading: Array("""
            version: 1
            products:
              - {productId: a, type: CONSUMABLE, referenceName: A, price: {currency: USD, amount: 2.10}}
              - {productId: b, type: CONSUMABLE, referenceName: 100, price: {currency: USD, amount: "0.1"}}
            """.utf8))
        #expect(file.products.map(\.price?.amount.text) == ["2.10", "0.1"])
        #expect(file.products[1].referenceName == "100")
    }

    @Test("every problem of the file's shape, at its path and line")
    func shapeProblems() {
        let text = """
            version: 1
            app: com.example.files
            produtcs: []
            products:
              - productId: a
                type: CONSUMABLES
                referenceName: A
                price: {currency: USD}
                level: one
                familyShareable: maybe
                localizations: {locale: en-US}
              - productId: b
                typo: x
            """
        do {
            _ = try CatalogFile(reading: Array(text.utf8))
            Issue.record("a file with problems was read")
        } catch CatalogFileError.invalid(let problems) {
            #expect(problems.map { "\($0.field):\($0.rule)" } == [
                "produtcs:unknown", "products[0].type:enum", "products[0].price.amount:required", "products[0].level:type",
                "products[0].familyShareable:type", "products[0].localizations:type", "products[1].typo:unknown",
                "products[1].type:required", "products[1].referenceName:required",
            ])
            #expect(problems[0].message == "unknown key \"produtcs\"; did you mean \"products\"? (line 3)")
            #expect(problems[1].message.hasPrefix("\"CONSUMABLES\" is not one of CONSUMABLE, NON_CONSUMABLE"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("not YAML, another version, anchors: each refused with why")
    func refusals() {
        #expect(throws: CatalogFileError.syntax(line: 3, column: 6, message: "while scanning a simple key: could not find expected ':'")) {
            try CatalogFile(reading: Array("version: 1\nproducts\n  - a".utf8))
        }
        #expect(throws: CatalogFileError.self) { try CatalogFile(reading: [0xFF, 0xFE]) }
        #expect(throws: CatalogFileError.invalid([FieldProblem(field: "version", rule: "supported",
                                                               message: "version 2 is not a version this service reads (it reads 1) (line 1)")])) {
            try CatalogFile(reading: Array("version: 2".utf8))
        }
        #expect(throws: CatalogFileError.invalid([FieldProblem(
            field: "$", rule: "anchor", message: "anchors and aliases (&, *) are not supported in a catalog file (line 2)")])) {
            try CatalogFile(reading: Array("version: 1\nproducts: &p []\nsubscriptionGroups: *p\n".utf8))
        }
        // Not an anchor: a star inside text, in quotes, in a comment.
        #expect(throws: Never.self) {
            try CatalogFile(reading: Array("""
                version: 1 # *not* an alias
                app: "&x"
                products:
                  - {productId: a, type: CONSUMABLE, referenceName: Get *all* levels}
                """.utf8))
        }
        #expect(throws: CatalogFileError.syntax(line: 1, column: 1, message: "a key appears twice in one mapping: version")) {
            try CatalogFile(reading: Array("version: 1\nversion: 1\n".utf8))
        }
    }

    @Test("writing into an existing file keeps its comments, its order of keys and products, and drops what is gone")
    func keepsComments() throws {
        let existing = """
            # yaml-language-server: $schema=https://catalog.example.com/v1/schemas/catalog-file.json
            # The game's catalog. Owner: Pat.

            version: 1
            app: com.example.files
            subscriptionGroups:
              - referenceName: Pro   # the only group
                localizations:
                  - {locale: en-US, name: Pro Access}
            products:
              # Subscriptions first, then coins.
              - productId: pro.monthly
                referenceName: "Pro: monthly # 1"   # renamed in March
                type: AUTO_RENEWABLE_SUBSCRIPTION
                # Price agreed with finance.
                price: {currency: USD, amount: "3.99"}
                subscriptionGroup: Pro
                level: 1
                duration: P1M
              # Going away.
              - productId: old.pack
                type: CONSUMABLE
                referenceName: Old pack
              - productId: coins.100
                type: CONSUMABLE
                referenceName: 100 coins

            # End of catalog.
            """
        var file = Self.sample
        file.products.removeAll { $0.productID == "trial" }
        file.products.append(.init(productID: "coins.500", type: .consumable, referenceName: "500 coins"))
        let written = file.yaml(schemaURL: "http://127.0.0.1:8080/v1/schemas/catalog-file.json", existing: existing)
        #expect(try CatalogFile(reading: Array(written.utf8)).products.map(\.productID) == ["pro.monthly", "coins.100", "coins.500"])
        let lines = written.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // The file's own schema comment stays; no second one is added.
        #expect(lines[0] == "# yaml-language-server: $schema=https://catalog.example.com/v1/schemas/catalog-file.json")
        #expect(lines[1] == "# The game's catalog. Owner: Pat.")
        #expect(lines.contains("  - referenceName: Pro # the only group"))
        let monthly = try #require(lines.firstIndex(of: "  - productId: pro.monthly"))
        #expect(lines[monthly - 1] == "  # Subscriptions first, then coins.")
        // Its keys in the file's order: referenceName before type, price before the group.
        #expect(lines[monthly + 1] == "    referenceName: \"Pro: monthly # 1\" # renamed in March")
        #expect(lines[monthly + 2] == "    type: AUTO_RENEWABLE_SUBSCRIPTION")
        #expect(lines[monthly + 3] == "    # Price agreed with finance.")
        #expect(lines[monthly + 4] == "    price:")
        #expect(!written.contains("Going away") && !written.contains("old.pack"))
        #expect(lines.suffix(3) == ["", "# End of catalog.", ""])
        // Written again into itself: nothing moves.
        #expect(file.yaml(existing: written) == written)
    }

    @Test("the schema names exactly the keys the reader takes")
    func schemaAgreesWithReader() throws {
        let schema = try #require(try JSONSerialization.jsonObject(with: CatalogFileSchema.data) as? [String: Any])
        func keys(_ object: Any?) -> Set<String> {
            Set(((object as? [String: Any])?["properties"] as? [String: Any])?.keys.map { $0 } ?? [])
        }
        let definitions = try #require(schema["$defs"] as? [String: Any])
        let product = definitions["product"] as? [String: Any]
        let productProperties = product?["properties"] as? [String: Any]
        #expect(keys(schema) == ["$schema", "version", "app", "subscriptionGroups", "products"])
        #expect(keys(definitions["subscriptionGroup"]) == ["referenceName", "localizations"])
        #expect(keys(product) == Set(CatalogFile.Item.keys))
        #expect(keys(productProperties?["price"]) == ["currency", "amount"])
        #expect(keys(productProperties?["introductoryOffer"]) == ["paymentMode", "period", "numberOfPeriods", "amount"])
        #expect(keys((productProperties?["localizations"] as? [String: Any])?["items"]) == ["locale", "displayName", "description"])
        #expect(keys((productProperties?["territoryPrices"] as? [String: Any])?["items"]) == ["territory", "currency", "amount"])
    }
}
