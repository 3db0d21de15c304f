import CatalogTestSupport
import Foundation
import Testing

@testable import StoreKitConfiguration

/// Files written by tools or by hand: minified, `": "` separators, no
/// trailing newline, other key orders, `.0` on whole doubles. They are read
/// like any other file and written back in Xcode's layout, so they are
/// compared as JSON data rather than as bytes.
@Suite("Minified and hand-written layouts")
struct NonXcodeLayoutTests {
    @Test(arguments: StoreKitFixture.allCases)
    func minifiedFixtureComesBackInXcodeLayout(fixture: StoreKitFixture) throws {
        let original = try fixture.data
        let minified = minify(original)
        #expect(minified.count < original.count)
        #expect(minified.last != UInt8(ascii: "\n"))

        let configuration = try StoreKitConfiguration(data: minified)
        #expect(configuration.jsonValue().isEquivalent(to: try StoreKitJSON(parsing: minified)))
        // Sorting keys and re-indenting recovers Xcode's exact bytes (with the final newline Xcode 12 left out).
        #expect(configuration.fileText() == (try fixture.exportText))
    }

    @Test func handWrittenFileRoundTripsAsJSONData() throws {
        let text = #"""
            {"version": {"minor": 1, "major": 1}, "subscriptionGroups": [], "settings": {"_lastSynchronizedDate": 748108800.0, "_timeRate": 1003, "_storefront": "FIN"},
             "products": [{"type": "Consumable", "referenceName": "Tips", "productID": "IT", "localizations": [{"locale": "fr", "displayName": "Pourboire à l’équipe", "description": ""}], "internalID": "0A1B2C3D", "familyShareable": false, "displayPrice": "0.5", "x-note": {"kept": [1, 2.5, null]}}],
             "identifier": "5509FCF1", "nonRenewingSubscriptions": []}
            """#
        let parsed = try StoreKitJSON(parsing: text)
        let configuration = try StoreKitConfiguration(json: parsed)
        #expect(configuration.products[0].unknownKeys["x-note"]?["kept"] == [1, 2.5, .null])
        #expect(configuration.products[0].localizations[0].displayName == "Pourboire à l’équipe")

        let written = configuration.fileData()
        let reparsed = try StoreKitJSON(parsing: written)
        #expect(reparsed.isEquivalent(to: parsed))
        #expect(reparsed != parsed, "keys re-sorted and 748108800.0 written as an integer")
        #expect(String(decoding: written, as: UTF8.self).contains(#""_lastSynchronizedDate" : 748108800,"#))
        // Raw parts (settings, unknown keys) keep the hand-written order and `.0`,
        // so the re-read model is equal as JSON data, and the next save is stable.
        let reread = try StoreKitConfiguration(data: written)
        #expect(reread.jsonValue().isEquivalent(to: configuration.jsonValue()))
        #expect(reread.fileData() == written)
    }

    @Test func missingSettingsAndVersion1Shape() throws {
        // RevenueCat's tool-written files have no settings; 1.0 files have no
        // identifier or nonRenewingSubscriptions. Absent must stay absent.
        let text = #"{"products":[],"subscriptionGroups":[],"version":{"major":1,"minor":0}}"#
        let configuration = try StoreKitConfiguration(data: Data(text.utf8))
        #expect(configuration.settings == nil)
        #expect(configuration.identifier == nil)
        #expect(configuration.nonRenewingSubscriptions == nil)
        #expect(
            configuration.fileText() == """
                {
                  "products" : [

                  ],
                  "subscriptionGroups" : [

                  ],
                  "version" : {
                    "major" : 1,
                    "minor" : 0
                  }
                }

                """)
    }
}

/// Drops the whitespace between tokens, as a minifier would.
private func minify(_ data: Data) -> Data {
    var result = Data()
    var inString = false
    var escaped = false
    for byte in data {
        if inString {
            result.append(byte)
            if escaped {
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: "\"") {
                inString = false
            }
        } else if byte == UInt8(ascii: "\"") {
            inString = true
            result.append(byte)
        } else if ![UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\t"), UInt8(ascii: "\r")].contains(byte) {
            result.append(byte)
        }
    }
    return result
}
